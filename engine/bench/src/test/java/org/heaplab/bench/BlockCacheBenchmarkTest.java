package org.heaplab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.heaplab.core.cache.CacheMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The benchmark's set-up and op, driven by hand (no JMH, no timing). */
@Timeout(60)
class BlockCacheBenchmarkTest {
    @ParameterizedTest
    @ValueSource(strings = {"lru", "bucket", "combined"})
    void everyOpIsAHitAndReleasesItsReference(String cache) throws Exception {
        BlockCacheBenchmark b = new BlockCacheBenchmark();
        b.cache = cache;
        b.blockSize = 65536;
        b.blocks = 64;
        b.setUp();
        for (int i = 0; i < 100; i++) {
            b.getHit();
        }
        CacheMetrics data = b.blockCache().metrics().get(cache.equals("combined") ? 1 : 0);
        assertEquals(100, data.hits());
        assertEquals(0, data.misses());
        assertEquals(64, data.blockCount());
        b.tearDown(); // fails if a reference leaked
    }

    @Test
    void anUnknownCacheIsRefused() {
        BlockCacheBenchmark b = new BlockCacheBenchmark();
        b.cache = "offheap";
        b.blockSize = 1024;
        b.blocks = 1;
        assertThrows(IllegalArgumentException.class, b::setUp);
    }
}
