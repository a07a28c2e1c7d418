package org.heaplab.core.cache;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.heaplab.core.cache.bucket.BucketCache;
import org.heaplab.core.cache.bucket.BucketCacheConfig;
import org.heaplab.core.cache.lru.LruBlockCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The detector must catch a reference that is never released, and pass once every one is. */
@Timeout(60)
class CacheLeakDetectorTest {
    private static final int KB = 1024;
    private BucketCache bucket;
    private BlockCache combined;

    @BeforeEach
    void setUp() throws Exception {
        bucket = new BucketCache(BucketCacheConfig.of(4 * 16 * KB, new int[] {KB, 4 * KB}));
        combined = new CombinedBlockCache(new LruBlockCache(1 << 20), bucket);
        combined.cacheBlock(new BlockCacheKey(1, 0), Block.onHeap(BlockType.DATA, new byte[3000]), false);
        assertTrue(bucket.awaitWrites(30_000));
    }

    @AfterEach
    void tearDown() {
        combined.close();
    }

    private Block get() {
        Block b = combined.getBlock(new BlockCacheKey(1, 0), BlockType.DATA, true);
        assertTrue(b.isOffHeap());
        return b;
    }

    @Test
    void aDeliberatelyLeakedReferenceFailsTheAssertion() {
        Block leaked = get();
        get().release();
        assertEquals(1, CacheLeakDetector.outstanding(combined));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> CacheLeakDetector.assertNoLeaks(combined));
        assertTrue(e.getMessage().startsWith("1 bucket block reference(s) never released"), e.getMessage());
        leaked.release();
        assertDoesNotThrow(() -> CacheLeakDetector.assertNoLeaks(combined));
    }

    @Test
    void readScopesOfBothReadPathsReleaseEveryReference() {
        for (ReadPath path : new ReadPath[] {new HeapCopyReadPath(), new ZeroCopyReadPath()}) {
            ReadScope scope = new ReadScope();
            Block used = path.use(get(), scope);
            assertEquals(3000, used.size());
            if (path instanceof ZeroCopyReadPath) {
                assertEquals(1, CacheLeakDetector.outstanding(combined), "held by the scope until the response is written");
            }
            scope.close();
            CacheLeakDetector.assertNoLeaks(combined);
        }
    }

    @Test
    void withSiteRecordingTheFailureNamesWhereTheReferenceWasTaken() {
        CacheLeakDetector d = new CacheLeakDetector("bucket", true);
        Object ref = new Object();
        d.taken(ref);
        IllegalStateException e = assertThrows(IllegalStateException.class, d::assertNoLeaks);
        assertEquals(1, e.getSuppressed().length);
        assertTrue(e.getSuppressed()[0].getStackTrace()[1].getMethodName().contains("withSiteRecording"),
            "the site is this test method");
        d.released(ref);
        d.assertNoLeaks();
    }

    @Test
    void onHeapCachesHaveNothingToLeak() {
        LruBlockCache lru = new LruBlockCache(1 << 20);
        lru.cacheBlock(new BlockCacheKey(1, 0), Block.onHeap(BlockType.DATA, new byte[10]), false);
        lru.getBlock(new BlockCacheKey(1, 0), BlockType.DATA, true);
        assertEquals(0, CacheLeakDetector.outstanding(lru));
        CacheLeakDetector.assertNoLeaks(lru);
    }
}
