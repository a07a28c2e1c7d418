package org.heaplab.core.region;

/**
 * Configuration keys of the region layer that are not in {@code StorageKeys}. (The read path,
 * heaplab.regionserver.read.path, is {@code cache.ReadPaths.KEY}; the block caches' keys are in the
 * cache package.)
 */
public final class RegionKeys {
    /**
     * Size of the row query cache in MB (the Hypertable article, Hypertable's QueryCache; HBase has none): 0 (the
     * default) turns it off. See {@link RowQueryCache}.
     */
    public static final String QUERY_CACHE_SIZE = "heaplab.regionserver.query.cache.size";
    public static final long DEFAULT_QUERY_CACHE_SIZE_MB = 0;

    private RegionKeys() {
    }
}
