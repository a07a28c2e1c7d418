package org.heaplab.server;

import org.heaplab.core.region.OnlineRegions;

/** TEMPORARY: the row query cache's counters (region helper's OnlineRegions.queryCacheMetrics); zeros until it lands. */
record QueryCacheCounters(long hits, long misses, long invalidations, long entries, long bytes) {
    static QueryCacheCounters of(OnlineRegions regions) {
        return new QueryCacheCounters(0, 0, 0, 0, 0);
    }
}
