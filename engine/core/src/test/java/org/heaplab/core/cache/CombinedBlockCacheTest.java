package org.heaplab.core.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.heaplab.core.cache.bucket.BucketCache;
import org.heaplab.core.cache.bucket.BucketCacheConfig;
import org.heaplab.core.cache.lru.LruBlockCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class CombinedBlockCacheTest {
    private static final int KB = 1024;

    @Test
    void indexAndBloomBlocksGoToTheHeapL1AndDataBlocksToTheOffHeapL2() throws Exception {
        LruBlockCache l1 = new LruBlockCache(1 << 20);
        BucketCache l2 = new BucketCache(BucketCacheConfig.of(4 * 16 * KB, new int[] {KB, 4 * KB}));
        try (CombinedBlockCache c = new CombinedBlockCache(l1, l2)) {
            byte[] index = new byte[100];
            byte[] bloom = new byte[200];
            c.cacheBlock(new BlockCacheKey(1, 0), Block.onHeap(BlockType.LEAF_INDEX, index), false);
            c.cacheBlock(new BlockCacheKey(1, 100), Block.onHeap(BlockType.BLOOM, bloom), false);
            c.cacheBlock(new BlockCacheKey(1, 300), Block.onHeap(BlockType.DATA, new byte[3000]), false);
            assertTrue(l2.awaitWrites(30_000));

            assertSame(index, c.getBlock(new BlockCacheKey(1, 0), BlockType.LEAF_INDEX, true).data().array());
            assertSame(bloom, c.getBlock(new BlockCacheKey(1, 100), BlockType.BLOOM, true).data().array());
            Block data = c.getBlock(new BlockCacheKey(1, 300), BlockType.DATA, true);
            assertTrue(data.isOffHeap());
            data.release();
            assertNull(l1.getBlock(new BlockCacheKey(1, 300), BlockType.DATA, false), "no data block on heap");
            assertNull(l2.getBlock(new BlockCacheKey(1, 0), BlockType.LEAF_INDEX, false), "no index block off heap");

            List<CacheMetrics> m = c.metrics();
            assertEquals(List.of("lru", "bucket"), m.stream().map(CacheMetrics::name).toList());
            assertEquals(2, m.get(0).blockCount());
            assertEquals(1, m.get(0).byType().get(BlockType.LEAF_INDEX).hits());
            assertEquals(1, m.get(0).byType().get(BlockType.BLOOM).hits());
            assertEquals(1, m.get(1).blockCount());
            assertEquals(1, m.get(1).byType().get(BlockType.DATA).hits());
            assertEquals(3, c.evictBlocksByFile(1));
            assertFalse(c.metrics().stream().anyMatch(x -> x.blockCount() > 0));
        }
    }
}
