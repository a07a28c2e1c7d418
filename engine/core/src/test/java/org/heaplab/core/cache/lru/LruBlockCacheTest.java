package org.heaplab.core.cache.lru;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockPriority;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.cache.CacheMetrics;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LruBlockCacheTest {
    private static final int BLOCK = 1000;
    private static final long PER_BLOCK = BLOCK + LruBlockCache.BLOCK_OVERHEAD;

    private static BlockCacheKey key(int i) {
        return new BlockCacheKey(1, i * 1000L);
    }

    private static CacheMetrics only(BlockCache cache) {
        return cache.metrics().get(0);
    }

    private static Block get(BlockCache cache, BlockCacheKey key) {
        return cache.getBlock(key, BlockType.DATA, true);
    }

    /** Evicts in the caching thread, so a test sees the result at once. */
    private static LruBlockCache inline(long blocks) {
        return new LruBlockCache(LruCacheConfig.ofCapacity(blocks * PER_BLOCK), LruBlockCache.Eviction.INLINE);
    }

    private static void put(BlockCache c, int i, boolean inMemory) {
        c.cacheBlock(key(i), Block.onHeap(BlockType.DATA, new byte[BLOCK]), inMemory);
    }

    @Test
    void evictsLeastRecentlyUsedDownToTheMinFactor() {
        LruBlockCache cache = inline(100);
        for (int i = 0; i < 99; i++) {
            put(cache, i, false);
        }
        assertEquals(0, only(cache).evictions(), "99% full is still acceptable");
        assertNotNull(get(cache, key(0))); // 0 becomes MULTI and most recently used
        put(cache, 99, false); // 100 blocks > 99%: evict to 95%
        CacheMetrics s = only(cache);
        assertEquals(1, s.evictions());
        assertEquals(95, s.blockCount());
        assertEquals(5, s.evictedBlocks());
        assertEquals(95 * PER_BLOCK, s.usedBytes());
        assertNotNull(get(cache, key(0)), "recently used block survives");
        for (int i = 1; i <= 5; i++) {
            assertNull(get(cache, key(i)), "oldest blocks go first: " + i);
        }
        assertNotNull(get(cache, key(6)));
        assertNotNull(get(cache, key(99)));
    }

    @Test
    void blocksReadTwiceSurviveAScanOfBlocksReadOnce() {
        LruBlockCache cache = inline(100);
        for (int i = 0; i < 40; i++) { // 40 % of the cache, within MULTI's 47.5 % share
            put(cache, i, false);
            get(cache, key(i));
        }
        assertEquals(BlockPriority.MULTI, cache.priority(key(0)));
        for (int i = 1000; i < 1300; i++) { // a scan three times the cache, each block read once
            put(cache, i, false);
        }
        assertTrue(only(cache).evictions() > 10);
        for (int i = 0; i < 40; i++) {
            assertNotNull(get(cache, key(i)), "MULTI block " + i + " survives the scan");
        }
        assertNull(get(cache, key(1000)), "the scan evicted its own old blocks");
        assertTrue(only(cache).usedBytes() <= 99 * PER_BLOCK);
    }

    @Test
    void inMemoryBlocksKeepTheirShareAgainstOtherBlocks() {
        LruBlockCache cache = inline(100);
        for (int i = 0; i < 20; i++) { // 20 % of the cache, within MEMORY's 23.75 % share
            put(cache, i, true);
        }
        assertEquals(BlockPriority.MEMORY, cache.priority(key(0)));
        get(cache, key(0));
        assertEquals(BlockPriority.MEMORY, cache.priority(key(0)), "a read does not move a MEMORY block");
        for (int i = 1000; i < 1300; i++) {
            put(cache, i, false);
            get(cache, key(i)); // even blocks read twice (MULTI) do not push them out
        }
        for (int i = 0; i < 20; i++) {
            assertNotNull(get(cache, key(i)), "in-memory block " + i);
        }
    }

    @Test
    void theEvictionThreadBringsTheCacheBackBelowTheAcceptableSize() throws Exception {
        LruBlockCache cache = new LruBlockCache(100 * PER_BLOCK);
        try {
            for (int i = 0; i < 110; i++) { // the thread may lag: the hard limit (120) is not reached
                put(cache, i, false);
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (only(cache).usedBytes() > 99 * PER_BLOCK && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(only(cache).usedBytes() <= 99 * PER_BLOCK, "evicted by the thread: " + only(cache));
            assertTrue(only(cache).evictions() >= 1);
            assertEquals(0, only(cache).failedInserts());
        } finally {
            cache.close();
        }
    }

    @Test
    void aboveTheHardLimitNewBlocksAreRefused() {
        LruBlockCache cache = new LruBlockCache(LruCacheConfig.ofCapacity(100 * PER_BLOCK), LruBlockCache.Eviction.MANUAL);
        for (int i = 0; i < 130; i++) { // nobody evicts: the cache grows to the hard limit, 1.2 x capacity
            put(cache, i, false);
        }
        assertEquals(120, only(cache).blockCount());
        assertEquals(10, only(cache).failedInserts());
        cache.evict();
        assertEquals(95, only(cache).blockCount());
        put(cache, 500, false);
        assertNotNull(get(cache, key(500)));
    }

    @Test
    void offHeapBlocksAreCopiedToTheHeapAndHeapBlocksKeptAsTheyAre() {
        LruBlockCache cache = inline(10);
        ByteBuffer direct = ByteBuffer.allocateDirect(10).put(0, (byte) 42);
        cache.cacheBlock(key(1), new Block(BlockType.DATA, direct, null), false);
        Block b = get(cache, key(1));
        assertFalse(b.isOffHeap());
        assertEquals(42, b.data().get(0));
        byte[] heap = new byte[10];
        cache.cacheBlock(key(2), Block.onHeap(BlockType.DATA, heap), false);
        assertSame(heap, get(cache, key(2)).data().array());
    }

    @Test
    void countsHitsAndMissesPerBlockType() {
        LruBlockCache cache = inline(100);
        byte[] block = new byte[10];
        assertNull(get(cache, key(1)));
        cache.cacheBlock(key(1), Block.onHeap(BlockType.DATA, block), false);
        assertSame(block, get(cache, key(1)).data().array());
        assertSame(block, get(cache, key(1)).data().array());
        assertNull(cache.getBlock(key(2), BlockType.LEAF_INDEX, true));
        assertNull(cache.getBlock(key(3), BlockType.BLOOM, false));
        CacheMetrics m = only(cache);
        assertEquals(2, m.byType().get(BlockType.DATA).hits());
        assertEquals(1, m.byType().get(BlockType.DATA).misses());
        assertEquals(1, m.byType().get(BlockType.LEAF_INDEX).misses());
        assertEquals(0, m.byType().get(BlockType.BLOOM).misses());
        assertEquals(0.5, m.hitRatio(), 1e-9);
    }

    @Test
    void evictsByFileAndRefusesOversizedBlocks() {
        LruBlockCache cache = inline(10);
        cache.cacheBlock(new BlockCacheKey(1, 0), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false);
        cache.cacheBlock(new BlockCacheKey(2, 0), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false);
        cache.cacheBlock(new BlockCacheKey(1, 10), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false);
        assertEquals(2, cache.evictBlocksByFile(1));
        assertEquals(1, only(cache).blockCount());
        assertEquals(PER_BLOCK, only(cache).usedBytes());
        cache.cacheBlock(new BlockCacheKey(3, 0), Block.onHeap(BlockType.DATA, new byte[(int) (11 * PER_BLOCK)]), false);
        assertNull(get(cache, new BlockCacheKey(3, 0)));
        assertEquals(1, only(cache).failedInserts());
    }

    @Test
    void capacityComesFromTheHeapFraction() {
        Configuration conf = new Configuration().set(StorageKeys.BLOCK_CACHE_SIZE, "0.25");
        long expected = (long) (0.25 * Runtime.getRuntime().maxMemory());
        assertEquals(expected, only(LruBlockCache.fromConf(conf)).capacityBytes(), 1.0);
        assertSame(BlockCache.NONE, LruBlockCache.fromConf(new Configuration().set(StorageKeys.BLOCK_CACHE_SIZE, "0")));
        assertEquals(1234, only(LruBlockCache.fromConf(new Configuration().set(StorageKeys.BLOCK_CACHE_BYTES, "1234")))
            .capacityBytes());
        assertTrue(expected > 0);
    }

    @Test
    void factorsComeFromHBasesKeysAndBadOnesAreOneLineErrors() {
        Configuration conf = new Configuration().set(StorageKeys.BLOCK_CACHE_BYTES, "100000")
            .set(CacheKeys.LRU_SINGLE_PERCENTAGE, "0.3").set(CacheKeys.LRU_MULTI_PERCENTAGE, "0.6")
            .set(CacheKeys.LRU_MEMORY_PERCENTAGE, "0.1").set(CacheKeys.LRU_MIN_FACTOR, "0.9");
        LruCacheConfig c = ((LruBlockCache) LruBlockCache.fromConf(conf)).config();
        assertEquals(0.3f, c.singleFactor());
        assertEquals(0.9f, c.minFactor());
        assertEquals(0.99f, c.acceptableFactor());
        String m = assertThrows(ConfigurationException.class,
            () -> LruBlockCache.fromConf(conf.set(CacheKeys.LRU_MEMORY_PERCENTAGE, "0.5"))).getMessage();
        assertTrue(m.startsWith("hbase.lru.blockcache.single.percentage, hbase.lru.blockcache.multi.percentage and"), m);
        conf.set(CacheKeys.LRU_MEMORY_PERCENTAGE, "0.1");
        m = assertThrows(ConfigurationException.class,
            () -> LruBlockCache.fromConf(conf.set(CacheKeys.LRU_ACCEPTABLE_FACTOR, "0.5"))).getMessage();
        assertTrue(m.startsWith("hbase.lru.blockcache.min.factor and hbase.lru.blockcache.acceptable.factor"), m);
    }

    /**
     * Readers keep touching blocks while eviction sorts them by last access. The sort must see one access
     * time per block: a sort whose keys change under it throws ("Comparison method violates its general
     * contract"), which killed the eviction thread and froze the cache at whatever it held then.
     */
    @Test
    void evictionSortsWhileReadersTouchTheBlocks() throws Exception {
        int n = 4000;
        LruBlockCache cache = new LruBlockCache(LruCacheConfig.ofCapacity(n * PER_BLOCK), LruBlockCache.Eviction.MANUAL);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Thread reader = new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (!stop.get()) {
                    get(cache, key(r.nextInt(2 * n)));
                }
            });
            reader.start();
            readers.add(reader);
        }
        int rounds = 200;
        try {
            int next = 0;
            for (int round = 0; round < rounds; round++) {
                while (only(cache).usedBytes() < n * PER_BLOCK) { // refill what the last run evicted
                    put(cache, next++ % (2 * n), false);
                }
                cache.evict();
            }
        } finally {
            stop.set(true);
            for (Thread reader : readers) {
                reader.join();
            }
        }
        assertEquals(rounds, only(cache).evictions());
        assertTrue(only(cache).usedBytes() < n * PER_BLOCK);
    }
}
