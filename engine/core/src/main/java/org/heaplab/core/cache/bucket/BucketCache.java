package org.heaplab.core.cache.bucket;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockPriority;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheLeakDetector;
import org.heaplab.core.cache.CacheMetrics;
import org.heaplab.core.cache.TypeCounters;
import org.heaplab.core.conf.Configuration;

/**
 * Off-heap block cache (HBase 2.x's BucketCache with hbase.bucketcache.ioengine=offheap): block bytes live
 * in direct memory reserved at start-up, cut into size-class slots by a {@link BucketAllocator}, so cached
 * data adds nothing to the heap the GC copies and scans.
 *
 * <p>Caching ({@link #cacheBlock}): the block goes into the RAM map (readers find it there at once) and
 * into the queue of one writer thread (by key hash). A full queue drops it (a failed insert). The writer
 * takes a slot (evicting when needed: {@link BucketEvictor}), copies the bytes into it and publishes a
 * {@link BucketEntry} in the backing map.
 *
 * <p>Reading ({@link #getBlock}): the RAM map (a heap block), then the backing map: the entry's reference
 * count is raised and the caller gets a Block over a slice of the slot, no copy. The caller must
 * {@link Block#release} it exactly once; until then the slot is neither freed nor reused, even if the
 * block is evicted meanwhile. Releasing twice throws.
 *
 * <p>Pitfalls: a reader that forgets to release pins its slot forever (eviction skips it):
 * {@link CacheLeakDetector} finds those in tests. Blocks are not persisted: a restart starts cold.
 *
 * <p>Thread safety: all public methods are safe for concurrent use. Invariant: a slot is allocated iff
 * exactly one BucketEntry with a reference count above zero names it.
 */
public final class BucketCache implements BlockCache, CacheLeakDetector.Counted {
    private static final Logger LOG = Logger.getLogger(BucketCache.class.getName());
    private final BucketCacheConfig config;
    private final BucketAllocator allocator;
    private final BucketMemory memory;
    private final Map<BlockCacheKey, PendingBlock> ramMap = new ConcurrentHashMap<>();
    private final Map<BlockCacheKey, BucketEntry> backingMap = new ConcurrentHashMap<>();
    private final BucketWriter[] writers;
    private final BucketEvictor evictor;
    private final long acceptableBytes;
    private final CacheLeakDetector leaks = CacheLeakDetector.fromSystemProperty("bucket");
    private final TypeCounters counters = new TypeCounters();
    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong pendingWrites = new AtomicLong();
    private final AtomicLong wastedBytes = new AtomicLong();
    private final LongAdder failedInserts = new LongAdder();
    private final LongAdder evictedBlocks = new LongAdder();
    private volatile boolean closed;

    /**
     * Reserves the memory and starts the writer threads.
     *
     * @throws org.heaplab.core.conf.ConfigurationException naming hbase.bucketcache.size when the direct
     *                                                      memory cannot be reserved
     */
    public BucketCache(BucketCacheConfig config) {
        this(config, true);
    }

    /** For tests: {@code startWriters = false} leaves blocks in the writer queues until {@link #startWriters}. */
    BucketCache(BucketCacheConfig config, boolean startWriters) {
        this.config = config;
        this.allocator = new BucketAllocator(config.capacityBytes(), config.bucketSizes());
        this.memory = new BucketMemory(allocator.bucketCount(), allocator.bucketCapacity(), config.capacityBytes());
        this.acceptableBytes = (long) (allocator.capacity() * (double) config.acceptFactor());
        this.evictor = new BucketEvictor(allocator, backingMap, this::evictForSpace, config.minFactor(),
            config.extraFreeFactor());
        this.writers = new BucketWriter[config.writerThreads()];
        for (int i = 0; i < writers.length; i++) {
            writers[i] = new BucketWriter("bucket-cache-writer-" + i, config.writerQueueLength(), this::write);
        }
        if (startWriters) {
            startWriters();
        }
    }

    /** hbase.bucketcache.size MB with the hbase.bucketcache.* settings. */
    public static BucketCache fromConf(Configuration conf) {
        return new BucketCache(BucketCacheConfig.fromConf(conf));
    }

    void startWriters() {
        for (BucketWriter w : writers) {
            w.start();
        }
    }

    @Override
    public Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats) {
        PendingBlock pending = ramMap.get(key);
        if (pending != null) {
            count(type, true, updateStats);
            return pending.block(); // a heap block: nothing to release
        }
        BucketEntry e = backingMap.get(key);
        if (e != null && e.tryRetain()) {
            e.accessed(clock.incrementAndGet());
            count(type, true, updateStats);
            Reference ref = new Reference(e);
            leaks.taken(ref);
            return new Block(e.type, memory.slice(e.offset, e.length), ref);
        }
        count(type, false, updateStats);
        return null;
    }

    private void count(BlockType type, boolean hit, boolean updateStats) {
        if (updateStats) {
            if (hit) {
                counters.hit(type);
            } else {
                counters.miss(type);
            }
        }
    }

    /**
     * Queues a copy of the block for a writer thread (a heap block is kept as is until written; an
     * off-heap one is copied to the heap first, as the caller keeps its reference). Refused and counted
     * as a failed insert: larger than the largest size class, or the writer queue is full.
     */
    @Override
    public void cacheBlock(BlockCacheKey key, Block block, boolean inMemory) {
        if (closed || backingMap.containsKey(key) || ramMap.containsKey(key)) {
            return;
        }
        if (block.size() > allocator.largestSlot()) {
            failedInserts.increment();
            return;
        }
        Block heap = block;
        if (block.isOffHeap()) {
            byte[] copy = new byte[block.size()];
            block.data().get(0, copy);
            heap = Block.onHeap(block.type(), copy);
        }
        PendingBlock p = new PendingBlock(key, heap, BlockPriority.initial(inMemory));
        if (ramMap.putIfAbsent(key, p) != null) {
            return; // another reader is caching the same block
        }
        pendingWrites.incrementAndGet();
        if (!writers[Math.floorMod(key.hashCode(), writers.length)].offer(p)) {
            ramMap.remove(key, p);
            pendingWrites.decrementAndGet();
            failedInserts.increment();
        }
    }

    /** A writer thread's step for one queued block: slot, copy, publish. */
    private void write(PendingBlock p) {
        try {
            if (!closed && ramMap.get(p.key()) == p) { // else evicted (evictBlocksByFile) while queued
                writeToSlot(p);
            }
        } catch (RuntimeException e) { // a bug; keep the writer thread alive and the block uncached
            ramMap.remove(p.key(), p);
            failedInserts.increment();
            LOG.log(Level.SEVERE, "bucket cache write of " + p.key() + " failed", e);
        } finally {
            pendingWrites.decrementAndGet();
        }
    }

    private void writeToSlot(PendingBlock p) {
        Block block = p.block();
        int length = block.size();
        long offset = allocator.allocate(length);
        if (offset == BucketAllocator.NO_SPACE) {
            evictor.freeSpace();
            offset = allocator.allocate(length);
        }
        if (offset == BucketAllocator.NO_SPACE) {
            evictor.freeWholeBucket(allocator.sizeClassOf(length));
            offset = allocator.allocate(length);
        }
        if (offset == BucketAllocator.NO_SPACE) {
            ramMap.remove(p.key(), p);
            failedInserts.increment();
            return;
        }
        memory.write(offset, block.data());
        int slot = allocator.slotSize(allocator.sizeClassOf(length));
        BucketEntry entry = new BucketEntry(offset, length, slot, block.type(), p.priority(), clock.incrementAndGet());
        wastedBytes.addAndGet(entry.wastedBytes());
        BucketEntry old = backingMap.put(p.key(), entry);
        if (old != null) {
            releaseReference(old);
        }
        if (!ramMap.remove(p.key(), p)) { // evicted between the check in write() and now: undo
            if (backingMap.remove(p.key(), entry)) {
                releaseReference(entry);
            }
        }
        if (allocator.usedBytes() > acceptableBytes) {
            evictor.tryFreeSpace();
        }
    }

    /** The evictor's step: unpublish and drop the map's reference; counts the evicted block. */
    private boolean evictForSpace(BlockCacheKey key, BucketEntry e) {
        if (!backingMap.remove(key, e)) {
            return false;
        }
        evictedBlocks.increment();
        return releaseReference(e);
    }

    /**
     * Gives back one reference of {@code e}: the map's (after the caller removed it from the map) or a
     * reader's. The last one frees the slot; returns true then.
     */
    private boolean releaseReference(BucketEntry e) {
        if (e.release()) {
            allocator.free(e.offset);
            wastedBytes.addAndGet(-e.wastedBytes());
            return true;
        }
        return false;
    }

    @Override
    public int evictBlocksByFile(long fileId) {
        int n = 0;
        for (Map.Entry<BlockCacheKey, PendingBlock> p : ramMap.entrySet()) {
            if (p.getKey().fileId() == fileId && ramMap.remove(p.getKey(), p.getValue())) {
                n++;
            }
        }
        for (Map.Entry<BlockCacheKey, BucketEntry> e : backingMap.entrySet()) {
            if (e.getKey().fileId() == fileId && backingMap.remove(e.getKey(), e.getValue())) {
                releaseReference(e.getValue()); // freed now, or by the last reader's release
                n++;
            }
        }
        return n;
    }

    @Override
    public List<CacheMetrics> metrics() {
        return List.of(new CacheMetrics("bucket", allocator.capacity(), allocator.usedBytes(), backingMap.size() + ramMap.size(),
            counters.snapshot(), evictor.runs(), evictedBlocks.sum(), failedInserts.sum(), wastedBytes.get()));
    }

    /** Counts the references handed out by getBlock and not yet released. */
    public CacheLeakDetector leakDetector() {
        return leaks;
    }

    /** This cache's one detector. */
    @Override
    public List<CacheLeakDetector> leakDetectors() {
        return List.of(leaks);
    }

    /**
     * Waits until every block offered so far has been written to a slot or dropped (tests, benchmarks);
     * false if that took longer than {@code timeoutMillis}.
     */
    public boolean awaitWrites(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (pendingWrites.get() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    public BucketCacheConfig config() {
        return config;
    }

    BucketAllocator allocator() {
        return allocator;
    }

    BucketEvictor evictor() {
        return evictor;
    }

    int backingMapSize() {
        return backingMap.size();
    }

    int ramMapSize() {
        return ramMap.size();
    }

    /** The reference count of a published block (tests), or -1 when it is not in the backing map. */
    int refCount(BlockCacheKey key) {
        BucketEntry e = backingMap.get(key);
        return e == null ? -1 : e.refCount();
    }

    /** The eviction group of a published block (tests), or null. */
    BlockPriority priority(BlockCacheKey key) {
        BucketEntry e = backingMap.get(key);
        return e == null ? null : e.priority();
    }

    /**
     * Stops the writers and forgets every block. Memory still referenced by readers stays valid: the
     * direct buffers are freed by the GC once the cache and every slice are unreachable, never explicitly.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (BucketWriter w : writers) {
            for (PendingBlock p : w.stop()) {
                ramMap.remove(p.key(), p);
                pendingWrites.decrementAndGet();
            }
        }
        ramMap.clear();
        backingMap.clear();
    }

    /** One reader's reference to a published block; released exactly once. */
    private final class Reference implements Block.Ref {
        private static final AtomicIntegerFieldUpdater<Reference> RELEASED =
            AtomicIntegerFieldUpdater.newUpdater(Reference.class, "released");
        private final BucketEntry entry;
        private volatile int released;

        Reference(BucketEntry entry) {
            this.entry = entry;
        }

        @Override
        public void release() {
            if (!RELEASED.compareAndSet(this, 0, 1)) {
                throw new IllegalStateException("a bucket cache block was released twice");
            }
            leaks.released(this);
            releaseReference(entry);
        }
    }
}
