package org.heaplab.core.cache;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cache.bucket.BucketCache;
import org.heaplab.core.cache.lru.LruBlockCache;

/**
 * HBase's CombinedBlockCache: two caches, routed by block type. Index and bloom blocks (small, read on
 * every get) go to the on-heap L1, an {@link LruBlockCache}; data blocks go to the off-heap L2, a
 * {@link BucketCache}. The heap then holds only the meta blocks; the bulk of the cached bytes is off heap.
 *
 * <p>Thread safety: as safe as its two caches.
 */
public final class CombinedBlockCache implements BlockCache, CacheLeakDetector.Counted {
    private final BlockCache l1;
    private final BucketCache l2;

    /** {@code l1} may be {@link BlockCache#NONE} (hfile.block.cache.size = 0): meta blocks are then not cached. */
    public CombinedBlockCache(BlockCache l1, BucketCache l2) {
        this.l1 = l1;
        this.l2 = l2;
    }

    private BlockCache cacheFor(BlockType type) {
        return type.isData() ? l2 : l1;
    }

    @Override
    public Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats) {
        return cacheFor(type).getBlock(key, type, updateStats);
    }

    @Override
    public void cacheBlock(BlockCacheKey key, Block block, boolean inMemory) {
        cacheFor(block.type()).cacheBlock(key, block, inMemory);
    }

    @Override
    public int evictBlocksByFile(long fileId) {
        return l1.evictBlocksByFile(fileId) + l2.evictBlocksByFile(fileId);
    }

    /** The L1's metrics, then the L2's. */
    @Override
    public List<CacheMetrics> metrics() {
        List<CacheMetrics> out = new ArrayList<>(l1.metrics());
        out.addAll(l2.metrics());
        return out;
    }

    /** The L1's detectors (none for an on-heap L1), then the L2's. */
    @Override
    public List<CacheLeakDetector> leakDetectors() {
        List<CacheLeakDetector> out = new ArrayList<>(CacheLeakDetector.of(l1));
        out.addAll(l2.leakDetectors());
        return out;
    }

    public BlockCache l1() {
        return l1;
    }

    public BucketCache l2() {
        return l2;
    }

    @Override
    public void close() {
        try {
            l1.close();
        } finally {
            l2.close();
        }
    }
}
