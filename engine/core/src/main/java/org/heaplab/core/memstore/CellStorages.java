package org.heaplab.core.memstore;

import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;

/** Chooses the memstore's {@link CellStorage} once at start-up from the configuration. */
public final class CellStorages {
    private CellStorages() {
    }

    /**
     * hbase.hregion.memstore.mslab.enabled false: {@link PlainCellStorage}; true: {@link MslabCellStorage}
     * over one {@link ChunkPool} of at most hbase.hregion.memstore.chunkpool.maxsize x
     * {@code globalMemstoreLimit} bytes of hbase.hregion.memstore.mslab.chunksize chunks.
     *
     * @throws ConfigurationException on an out-of-range value, or an off-heap memstore (not built)
     */
    public static CellStorage.Factory fromConf(Configuration conf, long globalMemstoreLimit) {
        if (conf.getLong(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, 0) > 0) {
            throw new ConfigurationException(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE
                + " > 0 asks for an off-heap memstore, which this engine does not implement; set it to 0");
        }
        if (!conf.getBoolean(StorageKeys.MSLAB_ENABLED, StorageKeys.DEFAULT_MSLAB_ENABLED)) {
            return PlainCellStorage.FACTORY;
        }
        int chunkSize = conf.getInt(StorageKeys.MSLAB_CHUNK_SIZE, StorageKeys.DEFAULT_MSLAB_CHUNK_SIZE);
        int maxAlloc = conf.getInt(StorageKeys.MSLAB_MAX_ALLOCATION, StorageKeys.DEFAULT_MSLAB_MAX_ALLOCATION);
        float poolFraction = conf.getFloat(StorageKeys.CHUNK_POOL_MAX_SIZE, StorageKeys.DEFAULT_CHUNK_POOL_MAX_SIZE);
        if (chunkSize < 1024) {
            throw new ConfigurationException(StorageKeys.MSLAB_CHUNK_SIZE + " must be at least 1024, got " + chunkSize);
        }
        if (maxAlloc < 0 || maxAlloc > chunkSize) {
            throw new ConfigurationException(StorageKeys.MSLAB_MAX_ALLOCATION + " must be in [0, "
                + StorageKeys.MSLAB_CHUNK_SIZE + "], got " + maxAlloc);
        }
        if (poolFraction < 0 || poolFraction > 1) {
            throw new ConfigurationException(StorageKeys.CHUNK_POOL_MAX_SIZE + " must be in [0, 1], got " + poolFraction);
        }
        int maxChunks = (int) Math.min(Integer.MAX_VALUE, (long) (poolFraction * (double) globalMemstoreLimit) / chunkSize);
        return MslabCellStorage.factory(new ChunkPool(chunkSize, maxChunks), maxAlloc);
    }
}
