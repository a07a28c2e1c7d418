package org.heaplab.core.cache;

/**
 * A cache of decoded (verified, decompressed) data blocks, shared by every store file of the server.
 * The path switch of lab 04: {@link LruBlockCache} keeps blocks as heap byte[] (HBase 1.x); an
 * off-heap BucketCache joins later behind this same interface.
 *
 * <p>Ownership: a cached byte[] is shared by every reader and must never be modified. Callers of
 * {@link #getBlock} copy the cells they return out of it (the 1.x behaviour, deliberate garbage);
 * callers of {@link #cacheBlock} hand the array over and must not modify it afterwards.
 *
 * <p>Thread safety: implementations are safe for concurrent use by any number of threads.
 */
public interface BlockCache {
    /** The cached block, or null on a miss; counts a hit or a miss. */
    byte[] getBlock(BlockCacheKey key);

    /** Caches a block (may refuse, e.g. a block larger than the cache). */
    void cacheBlock(BlockCacheKey key, byte[] block);

    /** Drops every block of one file (its reader closed); returns how many were dropped. */
    int evictBlocksByFile(long fileId);

    CacheStats stats();

    /** A cache that holds nothing (hfile.block.cache.size = 0). */
    BlockCache NONE = new BlockCache() {
        @Override
        public byte[] getBlock(BlockCacheKey key) {
            return null;
        }

        @Override
        public void cacheBlock(BlockCacheKey key, byte[] block) {
        }

        @Override
        public int evictBlocksByFile(long fileId) {
            return 0;
        }

        @Override
        public CacheStats stats() {
            return new CacheStats(0, 0, 0, 0, 0, 0, 0);
        }
    };
}
