package org.heaplab.core.cache.bucket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockPriority;
import org.heaplab.core.cache.BlockType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hidden test of the exercise bucket-refcount (engine/exercises.yml: the student edition leaves this file
 * out). A reference count that is never given back leaks the slot for good: after every reader released its
 * blocks and every file was evicted, every byte of the cache must be free again, and a freed entry can never
 * be taken again.
 */
@Timeout(60)
class BucketRefCountHiddenTest {
    private static final int KB = 1024;
    private static final int[] SIZES = {KB, 4 * KB};
    private static final long FOUR_BUCKETS = 4 * 16 * KB;

    @Test
    void everySlotIsFreeOnceTheReadersReleasedAndEveryFileIsEvicted() throws Exception {
        BucketCache c = new BucketCache(BucketCacheConfig.of(FOUR_BUCKETS, SIZES).withWriters(2, 16), true);
        try {
            ExecutorService pool = Executors.newFixedThreadPool(3);
            List<Future<Integer>> reads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                reads.add(pool.submit(() -> {
                    int hits = 0;
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    for (int i = 0; i < 5_000; i++) {
                        BlockCacheKey k = new BlockCacheKey(1 + r.nextInt(4), r.nextInt(16));
                        Block b = c.getBlock(k, BlockType.DATA, true);
                        if (b == null) {
                            c.cacheBlock(k, BucketCacheTest.heapBlock(k, 900 + r.nextInt(3000)), false);
                        } else {
                            hits++;
                            b.release();
                        }
                    }
                    return hits;
                }));
            }
            int hits = 0;
            for (Future<Integer> f : reads) {
                hits += f.get();
            }
            pool.shutdown();
            assertTrue(c.awaitWrites(30_000));
            assertTrue(hits > 0, "the readers found blocks");
            for (long file = 1; file <= 4; file++) {
                c.evictBlocksByFile(file);
            }
            assertEquals(0, c.metrics().get(0).usedBytes(), "a slot whose count never went back to zero leaked");
            assertEquals(0, c.leakDetector().outstanding());
        } finally {
            c.close();
        }
    }

    @Test
    void aFreedEntryIsNeverTakenAgainAndNeverReleasedTwice() {
        BucketEntry e = new BucketEntry(0, 100, KB, BlockType.DATA, BlockPriority.SINGLE, 0);
        assertTrue(e.tryRetain(), "a reader takes a reference");
        assertFalse(e.release(), "the map still holds one");
        assertTrue(e.release(), "the map's was the last: free the slot");
        assertFalse(e.tryRetain(), "a freed slot may already hold another block");
        assertThrows(IllegalStateException.class, e::release);
    }
}
