package org.heaplab.core.conf;

/**
 * Configuration keys of the storage layer and their defaults (HBase's names where HBase has the
 * concept; {@code heaplab.*} for the lab's own switches).
 */
public final class StorageKeys {
    public static final String ROOT_DIR = "hbase.rootdir";
    public static final String DEFAULT_ROOT_DIR = "data";

    public static final String WAL_HSYNC = "hbase.wal.hsync";
    public static final boolean DEFAULT_WAL_HSYNC = false;
    public static final String WAL_ROLL_SIZE = "hbase.regionserver.logroll.size";
    public static final long DEFAULT_WAL_ROLL_SIZE = 64L * 1024 * 1024;

    public static final String MEMSTORE_FLUSH_SIZE = "hbase.hregion.memstore.flush.size";
    public static final long DEFAULT_MEMSTORE_FLUSH_SIZE = 134217728L;
    public static final String GLOBAL_MEMSTORE_SIZE = "hbase.regionserver.global.memstore.size";
    public static final float DEFAULT_GLOBAL_MEMSTORE_SIZE = 0.4f;
    /** Lab override: the global memstore limit in bytes (wins over the heap fraction when set). */
    public static final String GLOBAL_MEMSTORE_BYTES = "heaplab.regionserver.global.memstore.bytes";
    /** Writers resume once all memstores are below this fraction of the global limit (HBase's lower mark). */
    public static final double GLOBAL_MEMSTORE_LOWER_MARK = 0.95;

    public static final String BLOCK_CACHE_SIZE = "hfile.block.cache.size";
    public static final float DEFAULT_BLOCK_CACHE_SIZE = 0.4f;
    /** Lab override: the block cache capacity in bytes (wins over the heap fraction when set). */
    public static final String BLOCK_CACHE_BYTES = "heaplab.block.cache.bytes";
    /** LruBlockCache evicts once above acceptable x capacity, down to min x capacity (HBase's factors). */
    public static final double LRU_ACCEPTABLE_FACTOR = 0.99;
    public static final double LRU_MIN_FACTOR = 0.95;

    private StorageKeys() {
    }
}
