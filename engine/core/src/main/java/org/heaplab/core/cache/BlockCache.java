package org.heaplab.core.cache;

import java.util.List;

/**
 * A cache of decoded (verified, decompressed) store-file blocks, shared by every store file of the
 * server. The cache switch of lab 04, one class per design: {@code LruBlockCache} (on heap, HBase 1.x),
 * {@code BucketCache} (off heap, size classes, reference counting) and {@code CombinedBlockCache} (meta
 * blocks in an LRU L1, data blocks in a BucketCache L2), chosen once at start-up by
 * {@code BlockCaches.fromConf}.
 *
 * <p>Ownership: see {@link Block}. {@link #getBlock} returns a block carrying one reference for the caller;
 * {@link #cacheBlock} never takes over the caller's block: it keeps it (heap caches keep the same heap
 * block, which then must never be modified) or copies it (off-heap caches).
 *
 * <p>Thread safety: implementations are safe for concurrent use by any number of threads.
 */
public interface BlockCache extends AutoCloseable {
    /**
     * The cached block with one reference taken for the caller (release it), or null on a miss. Counts a
     * hit or a miss for {@code type} when {@code updateStats}.
     */
    Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats);

    /**
     * Offers a block to the cache. It may refuse (too big, no space, a full writer queue: counted as a
     * failed insert). {@code inMemory}: the family is IN_MEMORY (the cache's in-memory priority).
     */
    void cacheBlock(BlockCacheKey key, Block block, boolean inMemory);

    /** Drops every block of one file (its reader closed); returns how many were dropped. */
    int evictBlocksByFile(long fileId);

    /** One entry per cache (a combined cache lists its L1 then its L2). */
    List<CacheMetrics> metrics();

    /** Stops background threads and frees off-heap memory. */
    @Override
    void close();

    /** A cache that holds nothing (hfile.block.cache.size = 0). */
    BlockCache NONE = new BlockCache() {
        @Override
        public Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats) {
            return null;
        }

        @Override
        public void cacheBlock(BlockCacheKey key, Block block, boolean inMemory) {
        }

        @Override
        public int evictBlocksByFile(long fileId) {
            return 0;
        }

        @Override
        public List<CacheMetrics> metrics() {
            return List.of();
        }

        @Override
        public void close() {
        }
    };
}
