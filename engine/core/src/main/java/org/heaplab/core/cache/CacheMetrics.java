package org.heaplab.core.cache;

import java.util.Map;

/**
 * A snapshot of one cache's counters, all since the cache was created ({@code admin metrics} prints them
 * as JSON under block_cache.caches[]; names in docs/contracts.md).
 *
 * @param name          "lru" (on-heap LruBlockCache) or "bucket" (off-heap BucketCache)
 * @param capacityBytes the configured size
 * @param usedBytes     bytes the cached blocks occupy (for a BucketCache: the slots, so waste included)
 * @param blockCount    blocks cached now
 * @param byType        hits and misses per block type (every BlockType present, zeros included)
 * @param evictions     eviction runs
 * @param evictedBlocks blocks evicted by those runs (not counting evictBlocksByFile)
 * @param failedInserts blocks offered but not cached (too big, no free slot, writer queue full)
 * @param wastedBytes   slot bytes not used by block data (BucketCache's round-up to a size class; 0 for LRU)
 */
public record CacheMetrics(String name, long capacityBytes, long usedBytes, long blockCount,
                           Map<BlockType, Counts> byType, long evictions, long evictedBlocks, long failedInserts,
                           long wastedBytes) {
    /** Hits and misses of one block type. */
    public record Counts(long hits, long misses) {
        public double hitRatio() {
            long total = hits + misses;
            return total == 0 ? 0 : (double) hits / total;
        }
    }

    public long hits() {
        return byType.values().stream().mapToLong(Counts::hits).sum();
    }

    public long misses() {
        return byType.values().stream().mapToLong(Counts::misses).sum();
    }

    /** hits / (hits + misses) over every block type; 0 when nothing was asked. */
    public double hitRatio() {
        return new Counts(hits(), misses()).hitRatio();
    }
}
