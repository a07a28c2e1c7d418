package org.heaplab.core.cache.lru;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockPriority;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheMetrics;
import org.heaplab.core.cache.TypeCounters;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;

/**
 * On-heap block cache (HBase 1.x's LruBlockCache): every cached block is a heap byte[], promoted to the
 * old generation by the GC and copied or scanned by it until evicted.
 *
 * <p>Priorities: a block starts SINGLE (MEMORY for an IN_MEMORY family) and becomes MULTI on its second
 * read; eviction keeps each group near its share ({@link LruEvictor}). Sizes: above acceptable x capacity
 * (0.99) the {@link LruEvictionThread} is woken and evicts down to min x capacity (0.95); above the hard
 * limit (1.2 x capacity: the thread is behind) new blocks are refused and counted as failed inserts, as
 * are blocks above hbase.lru.max.block.size.
 *
 * <p>Ownership: {@link #cacheBlock} keeps a heap block as it is (it must never be modified afterwards)
 * and copies an off-heap one to the heap. {@link #getBlock} returns the cached heap block itself: nothing
 * to release (release is a no-op), nothing copied.
 *
 * <p>Heap size of a block: its length plus {@link #BLOCK_OVERHEAD}.
 *
 * <p>Thread safety: a concurrent map, atomic size, and one eviction run at a time (a lock).
 */
public final class LruBlockCache implements BlockCache {
    /** Approximate heap bytes per cached block besides its data. */
    public static final int BLOCK_OVERHEAD = LruCachedBlock.OVERHEAD;

    /** Who runs eviction: the eviction thread (servers), the caching thread (tests) or nobody (tests). */
    enum Eviction { THREAD, INLINE, MANUAL }

    private final LruCacheConfig config;
    private final Map<BlockCacheKey, LruCachedBlock> blocks = new ConcurrentHashMap<>();
    private final AtomicLong size = new AtomicLong();
    private final AtomicLong clock = new AtomicLong();
    private final TypeCounters counters = new TypeCounters();
    private final LongAdder failedInserts = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder evictedBlocks = new LongAdder();
    private final ReentrantLock evictionLock = new ReentrantLock();
    private final Eviction eviction;
    private final LruEvictionThread evictionThread;

    /** A cache of {@code capacityBytes} with HBase's defaults and an eviction thread. */
    public LruBlockCache(long capacityBytes) {
        this(LruCacheConfig.ofCapacity(capacityBytes));
    }

    public LruBlockCache(LruCacheConfig config) {
        this(config, Eviction.THREAD);
    }

    LruBlockCache(LruCacheConfig config, Eviction eviction) {
        this.config = config;
        this.eviction = eviction;
        this.evictionThread = eviction == Eviction.THREAD ? new LruEvictionThread(this) : null;
        if (evictionThread != null) {
            evictionThread.start();
        }
    }

    /**
     * The server's on-heap cache: {@code hfile.block.cache.size x Runtime.maxMemory()} bytes (or the lab
     * override {@code heaplab.block.cache.bytes}) with the hbase.lru.blockcache.* settings;
     * {@link BlockCache#NONE} when that is 0.
     */
    public static BlockCache fromConf(Configuration conf) {
        long bytes = conf.getLong(StorageKeys.BLOCK_CACHE_BYTES, -1);
        if (bytes < 0) {
            float fraction = conf.getFloat(StorageKeys.BLOCK_CACHE_SIZE, StorageKeys.DEFAULT_BLOCK_CACHE_SIZE);
            if (fraction < 0 || fraction > 0.8f) {
                throw new ConfigurationException(StorageKeys.BLOCK_CACHE_SIZE + " must be between 0 and 0.8, got " + fraction);
            }
            bytes = (long) (fraction * (double) Runtime.getRuntime().maxMemory());
        }
        return bytes == 0 ? BlockCache.NONE : new LruBlockCache(LruCacheConfig.fromConf(conf, bytes));
    }

    static long heapSize(Block block) {
        return block.size() + BLOCK_OVERHEAD;
    }

    @Override
    public Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats) {
        LruCachedBlock b = blocks.get(key);
        if (b != null) {
            b.accessed(clock.incrementAndGet());
        }
        if (updateStats) {
            if (b == null) {
                counters.miss(type);
            } else {
                counters.hit(type);
            }
        }
        return b == null ? null : b.block;
    }

    @Override
    public void cacheBlock(BlockCacheKey key, Block offered, boolean inMemory) {
        if (offered.size() > config.maxBlockSize() || heapSize(offered) > config.acceptableBytes()) {
            failedInserts.increment();
            return;
        }
        if (blocks.containsKey(key)) {
            return;
        }
        if (size.get() + heapSize(offered) > config.hardLimitBytes()) {
            failedInserts.increment(); // eviction is behind: refuse rather than grow the heap without bound
            wakeEviction();
            return;
        }
        Block block = offered;
        if (offered.isOffHeap()) { // keep heap memory only
            byte[] copy = new byte[offered.size()];
            offered.data().get(0, copy);
            block = Block.onHeap(offered.type(), copy);
        }
        LruCachedBlock cached = new LruCachedBlock(block, BlockPriority.initial(inMemory), clock.incrementAndGet());
        if (blocks.putIfAbsent(key, cached) != null) {
            return;
        }
        if (size.addAndGet(cached.heapSize) > config.acceptableBytes()) {
            wakeEviction();
        }
    }

    private void wakeEviction() {
        switch (eviction) {
            case THREAD -> evictionThread.wake();
            case INLINE -> evict();
            case MANUAL -> { }
        }
    }

    /** One eviction run down to min x capacity, unless one is under way or the cache is small enough. */
    void evict() {
        if (!evictionLock.tryLock()) {
            return;
        }
        try {
            long bytesToFree = size.get() - config.minBytes();
            if (bytesToFree <= 0) {
                return;
            }
            evictions.increment();
            evictedBlocks.add(LruEvictor.evict(blocks, config, bytesToFree, this::remove));
        } finally {
            evictionLock.unlock();
        }
    }

    private long remove(BlockCacheKey key, LruCachedBlock b) {
        if (blocks.remove(key, b)) {
            size.addAndGet(-b.heapSize);
            return b.heapSize;
        }
        return 0;
    }

    @Override
    public int evictBlocksByFile(long fileId) {
        int n = 0;
        for (Map.Entry<BlockCacheKey, LruCachedBlock> e : blocks.entrySet()) {
            if (e.getKey().fileId() == fileId && remove(e.getKey(), e.getValue()) > 0) {
                n++;
            }
        }
        return n;
    }

    @Override
    public List<CacheMetrics> metrics() {
        return List.of(new CacheMetrics("lru", config.capacityBytes(), size.get(), blocks.size(), counters.snapshot(),
            evictions.sum(), evictedBlocks.sum(), failedInserts.sum(), 0));
    }

    public LruCacheConfig config() {
        return config;
    }

    /** The priority group of a cached block (tests), or null. */
    BlockPriority priority(BlockCacheKey key) {
        LruCachedBlock b = blocks.get(key);
        return b == null ? null : b.priority();
    }

    /** Stops the eviction thread and drops every block (readers keep the heap blocks they hold). */
    @Override
    public void close() {
        if (evictionThread != null) {
            evictionThread.shutdown();
        }
        for (Map.Entry<BlockCacheKey, LruCachedBlock> e : blocks.entrySet()) {
            remove(e.getKey(), e.getValue());
        }
    }
}
