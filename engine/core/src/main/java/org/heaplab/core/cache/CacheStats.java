package org.heaplab.core.cache;

/** A snapshot of a block cache's counters (all since the cache was created). */
public record CacheStats(long hits, long misses, long evictions, long evictedBlocks, long blockCount,
                         long heapSize, long capacity) {
    /** hits / (hits + misses), 0 when nothing was asked. */
    public double hitRatio() {
        long total = hits + misses;
        return total == 0 ? 0 : (double) hits / total;
    }
}
