package org.heaplab.core.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.junit.jupiter.api.Test;

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

    @Test
    void evictsLeastRecentlyUsedDownToTheMinFactor() {
        LruBlockCache cache = new LruBlockCache(100 * PER_BLOCK);
        for (int i = 0; i < 99; i++) {
            cache.cacheBlock(key(i), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false);
        }
        assertEquals(0, only(cache).evictions(), "99% full is still acceptable");
        assertNotNull(get(cache, key(0))); // 0 becomes most recently used
        cache.cacheBlock(key(99), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false); // 100 blocks > 99%: evict to 95%
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
    void countsHitsAndMisses() {
        LruBlockCache cache = new LruBlockCache(1 << 20);
        byte[] block = new byte[10];
        assertNull(get(cache, key(1)));
        cache.cacheBlock(key(1), Block.onHeap(BlockType.DATA, block), false);
        assertSame(block, get(cache, key(1)).data().array());
        assertSame(block, get(cache, key(1)).data().array());
        assertEquals(2, only(cache).hits());
        assertEquals(1, only(cache).misses());
        assertEquals(2.0 / 3, only(cache).hitRatio(), 1e-9);
    }

    @Test
    void evictsByFileAndRefusesOversizedBlocks() {
        LruBlockCache cache = new LruBlockCache(10 * PER_BLOCK);
        cache.cacheBlock(new BlockCacheKey(1, 0), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false);
        cache.cacheBlock(new BlockCacheKey(2, 0), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false);
        cache.cacheBlock(new BlockCacheKey(1, 10), Block.onHeap(BlockType.DATA, new byte[BLOCK]), false);
        assertEquals(2, cache.evictBlocksByFile(1));
        assertEquals(1, only(cache).blockCount());
        assertEquals(PER_BLOCK, only(cache).usedBytes());
        cache.cacheBlock(new BlockCacheKey(3, 0), Block.onHeap(BlockType.DATA, new byte[(int) (11 * PER_BLOCK)]), false);
        assertNull(get(cache, new BlockCacheKey(3, 0)));
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
}
