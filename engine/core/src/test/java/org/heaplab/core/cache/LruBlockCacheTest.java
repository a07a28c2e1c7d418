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

    @Test
    void evictsLeastRecentlyUsedDownToTheMinFactor() {
        LruBlockCache cache = new LruBlockCache(100 * PER_BLOCK);
        for (int i = 0; i < 99; i++) {
            cache.cacheBlock(key(i), new byte[BLOCK]);
        }
        assertEquals(0, cache.stats().evictions(), "99% full is still acceptable");
        assertNotNull(cache.getBlock(key(0))); // 0 becomes most recently used
        cache.cacheBlock(key(99), new byte[BLOCK]); // 100 blocks > 99%: evict to 95%
        CacheStats s = cache.stats();
        assertEquals(1, s.evictions());
        assertEquals(95, s.blockCount());
        assertEquals(5, s.evictedBlocks());
        assertEquals(95 * PER_BLOCK, s.heapSize());
        assertNotNull(cache.getBlock(key(0)), "recently used block survives");
        for (int i = 1; i <= 5; i++) {
            assertNull(cache.getBlock(key(i)), "oldest blocks go first: " + i);
        }
        assertNotNull(cache.getBlock(key(6)));
        assertNotNull(cache.getBlock(key(99)));
    }

    @Test
    void countsHitsAndMisses() {
        LruBlockCache cache = new LruBlockCache(1 << 20);
        byte[] block = new byte[10];
        assertNull(cache.getBlock(key(1)));
        cache.cacheBlock(key(1), block);
        assertSame(block, cache.getBlock(key(1)));
        assertSame(block, cache.getBlock(key(1)));
        assertEquals(2, cache.stats().hits());
        assertEquals(1, cache.stats().misses());
        assertEquals(2.0 / 3, cache.stats().hitRatio(), 1e-9);
    }

    @Test
    void evictsByFileAndRefusesOversizedBlocks() {
        LruBlockCache cache = new LruBlockCache(10 * PER_BLOCK);
        cache.cacheBlock(new BlockCacheKey(1, 0), new byte[BLOCK]);
        cache.cacheBlock(new BlockCacheKey(2, 0), new byte[BLOCK]);
        cache.cacheBlock(new BlockCacheKey(1, 10), new byte[BLOCK]);
        assertEquals(2, cache.evictBlocksByFile(1));
        assertEquals(1, cache.stats().blockCount());
        assertEquals(PER_BLOCK, cache.stats().heapSize());
        cache.cacheBlock(new BlockCacheKey(3, 0), new byte[(int) (11 * PER_BLOCK)]);
        assertNull(cache.getBlock(new BlockCacheKey(3, 0)));
    }

    @Test
    void capacityComesFromTheHeapFraction() {
        Configuration conf = new Configuration().set(StorageKeys.BLOCK_CACHE_SIZE, "0.25");
        long expected = (long) (0.25 * Runtime.getRuntime().maxMemory());
        assertEquals(expected, LruBlockCache.fromConf(conf).stats().capacity(), 1.0);
        assertSame(BlockCache.NONE, LruBlockCache.fromConf(new Configuration().set(StorageKeys.BLOCK_CACHE_SIZE, "0")));
        assertEquals(1234, LruBlockCache.fromConf(new Configuration().set(StorageKeys.BLOCK_CACHE_BYTES, "1234"))
            .stats().capacity());
        assertTrue(expected > 0);
    }
}
