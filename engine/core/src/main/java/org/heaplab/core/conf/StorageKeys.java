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

    /** Memstore cell storage: true = MSLAB chunks (2.x, HBase's default), false = plain heap cells (1.x). */
    public static final String MSLAB_ENABLED = "hbase.hregion.memstore.mslab.enabled";
    /** The engine's default is the 1.x path; profiles say which they use. */
    public static final boolean DEFAULT_MSLAB_ENABLED = false;
    public static final String MSLAB_CHUNK_SIZE = "hbase.hregion.memstore.mslab.chunksize";
    public static final int DEFAULT_MSLAB_CHUNK_SIZE = 2 * 1024 * 1024;
    public static final String MSLAB_MAX_ALLOCATION = "hbase.hregion.memstore.mslab.max.allocation";
    public static final int DEFAULT_MSLAB_MAX_ALLOCATION = 256 * 1024;
    /** Chunk pool bound, as a fraction of the global memstore limit. */
    public static final String CHUNK_POOL_MAX_SIZE = "hbase.hregion.memstore.chunkpool.maxsize";
    public static final float DEFAULT_CHUNK_POOL_MAX_SIZE = 1.0f;
    /**
     * Off-heap memstore in MB (2.x): 0 = chunks on the heap; > 0 (needs MSLAB) = a pool of
     * chunkpool.maxsize x this many MB of direct chunks reserved at start-up, heap chunks once exhausted.
     */
    public static final String OFFHEAP_GLOBAL_MEMSTORE_SIZE = "hbase.regionserver.offheap.global.memstore.size";
    public static final long DEFAULT_OFFHEAP_GLOBAL_MEMSTORE_SIZE = 0;
    /** Memstore index: NONE = one skip list until the flush; BASIC = flatten it in memory (needs MSLAB). */
    public static final String COMPACTING_MEMSTORE_TYPE = "hbase.hregion.compacting.memstore.type";
    public static final String DEFAULT_COMPACTING_MEMSTORE_TYPE = "NONE";
    /** The flat index of a BASIC memstore: CHUNK_MAP (HBase's ARRAY_MAP is not built). */
    public static final String COMPACTING_MEMSTORE_INDEX = "hbase.hregion.compacting.memstore.index";
    public static final String DEFAULT_COMPACTING_MEMSTORE_INDEX = "CHUNK_MAP";
    /** In-memory flush threshold of a BASIC memstore, as a fraction of hbase.hregion.memstore.flush.size. */
    public static final String INMEMORY_FLUSH_THRESHOLD_FACTOR = "hbase.memstore.inmemoryflush.threshold.factor";
    public static final float DEFAULT_INMEMORY_FLUSH_THRESHOLD_FACTOR = 0.014f;

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
