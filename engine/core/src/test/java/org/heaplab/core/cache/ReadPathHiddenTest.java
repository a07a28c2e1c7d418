package org.heaplab.core.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.heaplab.core.cache.bucket.BucketCache;
import org.heaplab.core.cache.bucket.BucketCacheConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hidden test of the exercise read-paths (engine/exercises.yml: the student edition leaves this file out).
 * What the public CacheLeakDetectorTest does not ask: the 1.x copy has the block's bytes and type, lives on
 * the heap and gives the reference back before the scope closes; a heap block goes through the 1.x path
 * uncopied; the 2.x path returns the cached block itself and holds exactly one reference until the scope
 * closes; neither path moves the shared buffer's position.
 */
@Timeout(60)
class ReadPathHiddenTest {
    private static final int KB = 1024;
    private static final BlockCacheKey KEY = new BlockCacheKey(1, 0);
    private BucketCache bucket;
    private byte[] bytes;

    @BeforeEach
    void setUp() throws Exception {
        bucket = new BucketCache(BucketCacheConfig.of(4 * 16 * KB, new int[] {KB, 4 * KB}));
        bytes = new byte[3000];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7 + 3);
        }
        bucket.cacheBlock(KEY, Block.onHeap(BlockType.LEAF_INDEX, bytes.clone()), false);
        assertTrue(bucket.awaitWrites(30_000));
    }

    @AfterEach
    void tearDown() {
        bucket.close();
    }

    private Block cached() {
        Block b = bucket.getBlock(KEY, BlockType.LEAF_INDEX, true);
        assertTrue(b.isOffHeap());
        return b;
    }

    private static byte[] read(Block b) {
        byte[] out = new byte[b.size()];
        b.data().duplicate().get(out);
        return out;
    }

    @Test
    void theHeapCopyHasTheBytesOnTheHeapAndTheReferenceIsBackAtOnce() {
        ReadScope scope = new ReadScope();
        Block copy = new HeapCopyReadPath().use(cached(), scope);
        assertFalse(copy.isOffHeap());
        assertEquals(BlockType.LEAF_INDEX, copy.type());
        assertArrayEquals(bytes, read(copy));
        assertEquals(0, CacheLeakDetector.outstanding(bucket), "released before the response is written");
        assertEquals(0, scope.heldBlocks());
        scope.close();
        Block again = cached();
        assertEquals(0, again.data().position(), "the shared buffer's position is untouched");
        again.release();
        CacheLeakDetector.assertNoLeaks(bucket);
    }

    @Test
    void aHeapBlockGoesThroughTheHeapCopyPathUncopied() {
        Block heap = Block.onHeap(BlockType.DATA, bytes);
        ReadScope scope = new ReadScope();
        assertSame(heap, new HeapCopyReadPath().use(heap, scope));
        assertEquals(0, scope.heldBlocks());
        scope.close();
    }

    @Test
    void zeroCopyServesTheCachedBlockAndHoldsOneReferenceUntilTheScopeCloses() {
        ReadScope scope = new ReadScope();
        Block cached = cached();
        Block used = new ZeroCopyReadPath().use(cached, scope);
        assertSame(cached, used);
        assertArrayEquals(bytes, read(used));
        assertEquals(0, used.data().position());
        assertEquals(1, scope.heldBlocks());
        assertEquals(1, CacheLeakDetector.outstanding(bucket));
        scope.close();
        assertEquals(0, CacheLeakDetector.outstanding(bucket));
        scope.close(); // idempotent: the reference is not given back twice
        CacheLeakDetector.assertNoLeaks(bucket);
    }
}
