package org.heaplab.core.cache.bucket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class BucketCacheTest {
    private static final int KB = 1024;
    /** Two classes, 1 KB and 4 KB; buckets of 16 KB. Four buckets: bucket 0 holds 16 x 1 KB, buckets 1-3 hold 4 x 4 KB. */
    private static final int[] SIZES = {KB, 4 * KB};
    private static final long FOUR_BUCKETS = 4 * 16 * KB;

    private final List<BucketCache> caches = new ArrayList<>();

    @AfterEach
    void close() {
        caches.forEach(BucketCache::close);
    }

    private BucketCache cache(int threads, int queue, boolean startWriters) {
        BucketCache c = new BucketCache(BucketCacheConfig.of(FOUR_BUCKETS, SIZES)
            .withWriters(threads, queue), startWriters);
        caches.add(c);
        return c;
    }

    private BucketCache cache() {
        return cache(1, 64, true);
    }

    static BlockCacheKey key(long file, long offset) {
        return new BlockCacheKey(file, offset);
    }

    /** Bytes that depend on the key, so a block read from a reused slot is detected. */
    static byte[] content(BlockCacheKey k, int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (k.fileId() * 31 + k.offset() * 7 + i);
        }
        return b;
    }

    static Block heapBlock(BlockCacheKey k, int size) {
        return Block.onHeap(BlockType.DATA, content(k, size));
    }

    static byte[] bytes(Block b) {
        byte[] out = new byte[b.size()];
        b.data().get(0, out);
        return out;
    }

    private static void written(BucketCache c) throws InterruptedException {
        assertTrue(c.awaitWrites(30_000), "writers finished");
    }

    private static CacheMetrics metrics(BucketCache c) {
        return c.metrics().get(0);
    }

    @Test
    void aCachedBlockIsReadBackAsASliceOfOffHeapMemoryWithEqualBytes() throws Exception {
        BucketCache c = cache();
        BlockCacheKey k = key(1, 0);
        c.cacheBlock(k, heapBlock(k, 3000), false);
        written(c);
        Block b = c.getBlock(k, BlockType.DATA, true);
        assertNotNull(b);
        assertTrue(b.isOffHeap());
        assertEquals(0, b.data().position());
        assertEquals(3000, b.size());
        assertArrayEquals(content(k, 3000), bytes(b));
        assertEquals(2, c.refCount(k), "the map's reference and the reader's");
        b.release();
        assertEquals(1, c.refCount(k));
        assertThrows(IllegalStateException.class, b::release, "a second release is a bug");
        assertEquals(1, c.refCount(k));
    }

    @Test
    void anOffHeapBlockOfferedIsCopiedSoTheCallerKeepsItsOwn() throws Exception {
        BucketCache c = cache();
        BlockCacheKey k = key(1, 0);
        ByteBuffer direct = ByteBuffer.allocateDirect(2000);
        direct.put(content(k, 2000)).flip();
        c.cacheBlock(k, new Block(BlockType.DATA, direct, null), false);
        direct.put(0, (byte) 99); // the caller's buffer is its own
        written(c);
        Block b = c.getBlock(k, BlockType.DATA, true);
        assertArrayEquals(content(k, 2000), bytes(b));
        b.release();
    }

    @Test
    void aBlockIsFoundInTheRamMapBeforeItsWriterCopiedIt() {
        BucketCache c = cache(1, 4, false);
        BlockCacheKey k = key(1, 0);
        Block offered = heapBlock(k, 500);
        c.cacheBlock(k, offered, false);
        Block b = c.getBlock(k, BlockType.DATA, true);
        assertFalse(b.isOffHeap());
        assertArrayEquals(content(k, 500), bytes(b));
        assertEquals(0, c.backingMapSize());
        assertEquals(1, metrics(c).hits());
    }

    @Test
    void aFullWriterQueueDropsTheBlockAndCountsAFailedInsert() throws Exception {
        BucketCache c = cache(1, 2, false); // writer not running: the queue fills
        for (int i = 0; i < 3; i++) {
            c.cacheBlock(key(1, i), heapBlock(key(1, i), 500), false);
        }
        assertEquals(1, metrics(c).failedInserts());
        assertNull(c.getBlock(key(1, 2), BlockType.DATA, true), "the dropped block is not cached");
        c.startWriters();
        written(c);
        assertEquals(2, c.backingMapSize());
        assertEquals(0, c.ramMapSize());
        for (int i = 0; i < 2; i++) {
            Block b = c.getBlock(key(1, i), BlockType.DATA, true);
            assertTrue(b.isOffHeap());
            b.release();
        }
    }

    @Test
    void blocksLargerThanTheLargestClassAreRefused() {
        BucketCache c = cache();
        c.cacheBlock(key(1, 0), heapBlock(key(1, 0), 4 * KB + 1), false);
        assertEquals(1, metrics(c).failedInserts());
        assertNull(c.getBlock(key(1, 0), BlockType.DATA, false));
    }

    @Test
    void wastedBytesAreTheSlotMinusTheBlock() throws Exception {
        BucketCache c = cache();
        c.cacheBlock(key(1, 0), heapBlock(key(1, 0), 1000), false); // 1 KB slot: 24 wasted
        c.cacheBlock(key(2, 0), heapBlock(key(2, 0), 3000), false); // 4 KB slot: 1096 wasted
        written(c);
        CacheMetrics m = metrics(c);
        assertEquals(24 + 1096, m.wastedBytes());
        assertEquals(KB + 4 * KB, m.usedBytes());
        assertEquals(2, m.blockCount());
        assertEquals(1, c.evictBlocksByFile(2));
        assertEquals(24, metrics(c).wastedBytes());
        assertEquals(KB, metrics(c).usedBytes());
    }

    @Test
    void countsHitsAndMissesPerBlockType() throws Exception {
        BucketCache c = cache();
        c.cacheBlock(key(1, 0), heapBlock(key(1, 0), 100), false);
        written(c);
        c.getBlock(key(1, 0), BlockType.DATA, true).release();
        c.getBlock(key(1, 0), BlockType.DATA, false).release(); // not counted
        assertNull(c.getBlock(key(1, 1), BlockType.DATA, true));
        assertNull(c.getBlock(key(1, 2), BlockType.BLOOM, true));
        CacheMetrics m = metrics(c);
        assertEquals(1, m.byType().get(BlockType.DATA).hits());
        assertEquals(1, m.byType().get(BlockType.DATA).misses());
        assertEquals(1, m.byType().get(BlockType.BLOOM).misses());
        assertEquals(0, m.byType().get(BlockType.LEAF_INDEX).misses());
        assertEquals(1.0 / 3, m.hitRatio(), 1e-9);
        assertEquals("bucket", m.name());
        assertEquals(FOUR_BUCKETS, m.capacityBytes());
    }

    @Test
    void evictedByFileWhileReferencedTheSlotIsFreedOnlyOnRelease() throws Exception {
        BucketCache c = cache();
        BlockCacheKey k = key(7, 0);
        c.cacheBlock(k, heapBlock(k, 3000), false);
        c.cacheBlock(key(8, 0), heapBlock(key(8, 0), 3000), false);
        written(c);
        Block held = c.getBlock(k, BlockType.DATA, true);
        assertEquals(1, c.evictBlocksByFile(7));
        assertNull(c.getBlock(k, BlockType.DATA, true), "gone from the cache at once");
        assertEquals(8 * KB, metrics(c).usedBytes(), "but its slot is still allocated");
        for (int i = 1; i <= 3; i++) { // fill the other free 4 KB slots: none may land on the held one
            c.cacheBlock(key(9, i), heapBlock(key(9, i), 3000), false);
        }
        written(c);
        assertArrayEquals(content(k, 3000), bytes(held), "the reader's bytes are intact");
        assertEquals(5 * 4 * KB, metrics(c).usedBytes());
        held.release();
        assertEquals(4 * 4 * KB, metrics(c).usedBytes(), "freed by the last release");
    }

    @Test
    void evictionSkipsReferencedBlocksAndFreesOthers() throws Exception {
        BucketCache c = cache();
        List<Block> held = new ArrayList<>();
        for (int i = 0; i < 12; i++) { // fills the twelve 4 KB slots
            c.cacheBlock(key(1, i), heapBlock(key(1, i), 3000), false);
        }
        written(c);
        assertEquals(12, c.backingMapSize());
        for (int i = 0; i < 11; i++) {
            held.add(c.getBlock(key(1, i), BlockType.DATA, true));
        }
        c.cacheBlock(key(2, 0), heapBlock(key(2, 0), 3000), false); // needs a slot: only block 11 may go
        written(c);
        assertTrue(metrics(c).evictions() >= 1);
        assertEquals(1, metrics(c).evictedBlocks());
        assertNull(c.getBlock(key(1, 11), BlockType.DATA, false), "the only unreferenced block was evicted");
        Block fresh = c.getBlock(key(2, 0), BlockType.DATA, false);
        assertArrayEquals(content(key(2, 0), 3000), bytes(fresh));
        held.add(fresh);
        for (int i = 0; i < 11; i++) {
            assertArrayEquals(content(key(1, i), 3000), bytes(held.get(i)), "held block " + i + " survived");
        }
        c.cacheBlock(key(3, 0), heapBlock(key(3, 0), 3000), false); // every block referenced: nothing to evict
        written(c);
        assertEquals(1, metrics(c).failedInserts());
        assertEquals(12, c.backingMapSize());
        held.forEach(Block::release);
        c.cacheBlock(key(4, 0), heapBlock(key(4, 0), 3000), false); // released: eviction works again
        written(c);
        Block b = c.getBlock(key(4, 0), BlockType.DATA, false);
        assertNotNull(b);
        b.release();
        assertEquals(0, c.leakDetector().outstanding());
    }

    @Test
    void aClassWithoutSlotsGetsTheLeastOccupiedUnreferencedBucketEmptiedAndReassigned() throws Exception {
        BucketCache c = cache();
        List<Block> held = new ArrayList<>();
        for (int i = 0; i < 16; i++) { // fill bucket 0 (the 1 KB class) and keep every block referenced
            c.cacheBlock(key(1, i), heapBlock(key(1, i), 1000), false);
        }
        written(c);
        for (int i = 0; i < 16; i++) {
            held.add(c.getBlock(key(1, i), BlockType.DATA, true));
        }
        for (int i = 0; i < 12; i++) { // 4 KB blocks, one file each: 0-3 in bucket 1, 4-7 in 2, 8-11 in 3
            c.cacheBlock(key(10 + i, 0), heapBlock(key(10 + i, 0), 3000), false);
            written(c);
        }
        for (int i : new int[] {0, 1, 2, 4, 5, 8}) { // leave 1, 2 and 3 blocks: no bucket is empty
            c.evictBlocksByFile(10 + i);
        }
        Block pinned = c.getBlock(key(13, 0), BlockType.DATA, false); // bucket 1's only block is referenced
        assertEquals(0, c.allocator().reassignments());
        assertEquals(2 * 4 * KB, c.evictor().freeWholeBucket(0), "bucket 2 (two blocks) is emptied, not the pinned bucket 1");
        assertNull(c.getBlock(key(16, 0), BlockType.DATA, false));
        assertNull(c.getBlock(key(17, 0), BlockType.DATA, false));
        assertArrayEquals(content(key(13, 0), 3000), bytes(pinned));
        c.cacheBlock(key(2, 0), heapBlock(key(2, 0), 1000), false);
        written(c);
        Block b = c.getBlock(key(2, 0), BlockType.DATA, false);
        assertNotNull(b, "cached in the emptied bucket, moved to the 1 KB class");
        assertEquals(1, c.allocator().reassignments());
        assertEquals(2, c.allocator().classStats()[0].buckets());
        b.release();
        pinned.release();
        held.forEach(Block::release);
        assertEquals(0, c.leakDetector().outstanding());
    }

    @Test
    void whenNoSlotIsLeftTheWriterEvictsAndReassignsABucket() throws Exception {
        BucketCache c = cache();
        List<Block> held = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            c.cacheBlock(key(1, i), heapBlock(key(1, i), 1000), false);
        }
        written(c);
        for (int i = 0; i < 16; i++) {
            held.add(c.getBlock(key(1, i), BlockType.DATA, true)); // the 1 KB class cannot free a slot
        }
        for (int i = 0; i < 12; i++) {
            c.cacheBlock(key(10 + i, 0), heapBlock(key(10 + i, 0), 3000), false);
        }
        written(c);
        c.cacheBlock(key(2, 0), heapBlock(key(2, 0), 1000), false);
        written(c);
        Block b = c.getBlock(key(2, 0), BlockType.DATA, false);
        assertNotNull(b, "4 KB blocks were evicted until a bucket was empty and could change class");
        assertEquals(1, c.allocator().reassignments());
        assertTrue(metrics(c).evictedBlocks() > 0);
        b.release();
        held.forEach(Block::release);
    }

    @Test
    void inMemoryBlocksStartInTheMemoryGroupAndReadBlocksBecomeMulti() throws Exception {
        BucketCache c = cache();
        c.cacheBlock(key(1, 0), heapBlock(key(1, 0), 100), true);
        c.cacheBlock(key(1, 1), heapBlock(key(1, 1), 100), false);
        written(c);
        assertEquals(org.heaplab.core.cache.BlockPriority.MEMORY, c.priority(key(1, 0)));
        assertEquals(org.heaplab.core.cache.BlockPriority.SINGLE, c.priority(key(1, 1)));
        c.getBlock(key(1, 1), BlockType.DATA, true).release();
        c.getBlock(key(1, 0), BlockType.DATA, true).release();
        assertEquals(org.heaplab.core.cache.BlockPriority.MULTI, c.priority(key(1, 1)));
        assertEquals(org.heaplab.core.cache.BlockPriority.MEMORY, c.priority(key(1, 0)));
    }

    @Test
    void blocksReadAgainAndInMemoryBlocksSurviveAFloodOfBlocksReadOnce() throws Exception {
        BucketCache c = cache();
        for (int i = 0; i < 3; i++) { // MULTI: cached, then read
            c.cacheBlock(key(1, i), heapBlock(key(1, i), 3000), false);
        }
        c.cacheBlock(key(2, 0), heapBlock(key(2, 0), 3000), true); // MEMORY
        written(c);
        for (int i = 0; i < 3; i++) {
            c.getBlock(key(1, i), BlockType.DATA, true).release();
        }
        for (int i = 0; i < 40; i++) { // a scan: 40 blocks read once into 8 remaining 4 KB slots
            c.cacheBlock(key(3, i), heapBlock(key(3, i), 3000), false);
            written(c);
        }
        assertTrue(metrics(c).evictedBlocks() >= 32);
        for (int i = 0; i < 3; i++) {
            Block b = c.getBlock(key(1, i), BlockType.DATA, false);
            assertNotNull(b, "MULTI block " + i + " survived the scan");
            b.release();
        }
        Block m = c.getBlock(key(2, 0), BlockType.DATA, false);
        assertNotNull(m, "the in-memory block survived the scan");
        m.release();
        assertNull(c.getBlock(key(3, 0), BlockType.DATA, false), "the scan's oldest blocks went first");
    }

    @Test
    void evictBlocksByFileDropsQueuedAndWrittenBlocks() throws Exception {
        BucketCache c = cache(1, 8, false);
        c.cacheBlock(key(5, 0), heapBlock(key(5, 0), 100), false);
        c.cacheBlock(key(6, 0), heapBlock(key(6, 0), 100), false);
        assertEquals(1, c.evictBlocksByFile(5), "still queued");
        c.startWriters();
        written(c);
        assertNull(c.getBlock(key(5, 0), BlockType.DATA, false), "the writer does not publish an evicted block");
        assertEquals(1, c.backingMapSize());
        assertEquals(1, c.evictBlocksByFile(6));
        assertEquals(0, metrics(c).usedBytes());
    }

    /**
     * Readers get, check and release blocks while writers cache new ones into a cache far too small, so
     * slots are evicted and reused all the time: a reader must never see another block's bytes.
     */
    @Test
    void concurrentReadersNeverSeeAReusedSlot() throws Exception {
        BucketCache c = cache(2, 16, true);
        int keys = 64;
        int threads = 3;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Long>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                start.await();
                long checked = 0;
                ThreadLocalRandom r = ThreadLocalRandom.current();
                for (int i = 0; i < 20_000; i++) {
                    BlockCacheKey k = key(1, r.nextInt(keys));
                    int size = 2000 + (int) (k.offset() % 7) * 100;
                    Block b = c.getBlock(k, BlockType.DATA, true);
                    if (b == null) {
                        c.cacheBlock(k, heapBlock(k, size), false);
                        continue;
                    }
                    byte[] expected = content(k, size);
                    for (int j = 0; j < size; j += 97) {
                        if (b.data().get(j) != expected[j]) {
                            throw new AssertionError("block " + k + " byte " + j + " changed under its reader");
                        }
                    }
                    checked++;
                    b.release();
                }
                return checked;
            }));
        }
        start.countDown();
        long checked = 0;
        for (Future<Long> f : results) {
            checked += f.get();
        }
        pool.shutdown();
        written(c);
        assertTrue(checked > 0);
        assertTrue(metrics(c).evictedBlocks() > 0, "the cache was too small: eviction ran");
        assertEquals(0, c.leakDetector().outstanding());
        assertTrue(metrics(c).usedBytes() <= FOUR_BUCKETS);
    }

    /**
     * Readers keep touching blocks while eviction sorts them by last access. The sort must see one access
     * time per block: a sort whose keys change under it throws ("Comparison method violates its general
     * contract"), which failed every write that ran eviction and left the cache half empty.
     */
    @Test
    void evictionSortsWhileReadersTouchTheBlocks() throws Exception {
        int slots = 128 * 16; // 128 buckets of sixteen 1 KB slots
        BucketCache c = new BucketCache(BucketCacheConfig.of(slots * KB, SIZES).withWriters(1, slots), true);
        caches.add(c);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Thread reader = new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (!stop.get()) {
                    Block b = c.getBlock(key(1, r.nextInt(slots)), BlockType.DATA, true);
                    if (b != null) {
                        b.release();
                    }
                }
            });
            reader.start();
            readers.add(reader);
        }
        try {
            for (int round = 0; round < 40; round++) {
                for (int k = 0; k < slots; k++) { // refill what the last run evicted
                    c.cacheBlock(key(1, k), heapBlock(key(1, k), 900), false);
                }
                written(c);
                c.evictor().freeSpace();
            }
        } finally {
            stop.set(true);
            for (Thread reader : readers) {
                reader.join();
            }
        }
        assertTrue(metrics(c).evictedBlocks() > 0, "eviction ran");
        assertEquals(0, metrics(c).failedInserts(), "no write failed in the eviction it ran");
    }
}
