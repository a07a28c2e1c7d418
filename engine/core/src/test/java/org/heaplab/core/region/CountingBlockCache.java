package org.heaplab.core.region;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheMetrics;

/**
 * Test wrapper around any block cache that counts the references it hands out on off-heap blocks and
 * not yet given back (heap blocks need no release). {@link #outstanding()} must be 0 whenever no read
 * scope is open; a reader that forgets a release leaves it above 0.
 */
final class CountingBlockCache implements BlockCache {
    private final BlockCache cache;
    private final AtomicLong outstanding = new AtomicLong();
    private final AtomicLong handedOut = new AtomicLong();

    CountingBlockCache(BlockCache cache) {
        this.cache = cache;
    }

    long outstanding() {
        return outstanding.get();
    }

    /** Off-heap references handed out so far (to show that the test exercised them). */
    long handedOut() {
        return handedOut.get();
    }

    @Override
    public Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats) {
        Block b = cache.getBlock(key, type, updateStats);
        if (b == null || !b.isOffHeap()) {
            return b;
        }
        outstanding.incrementAndGet();
        handedOut.incrementAndGet();
        java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
        return new Block(b.type(), b.data(), () -> {
            if (!released.compareAndSet(false, true)) {
                throw new IllegalStateException("block reference released twice");
            }
            outstanding.decrementAndGet();
            b.release();
        });
    }

    @Override
    public void cacheBlock(BlockCacheKey key, Block block, boolean inMemory) {
        cache.cacheBlock(key, block, inMemory);
    }

    @Override
    public int evictBlocksByFile(long fileId) {
        return cache.evictBlocksByFile(fileId);
    }

    @Override
    public List<CacheMetrics> metrics() {
        return cache.metrics();
    }

    @Override
    public void close() {
        cache.close();
    }
}
