package org.heaplab.core.memstore;

import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;

/** Chooses the memstore's {@link CellStorage} and {@link ChunkPool} once at start-up from the configuration. */
public final class CellStorages {
    private CellStorages() {
    }

    /**
     * hbase.hregion.memstore.mslab.enabled false: {@link PlainCellStorage}; true: {@link MslabCellStorage}
     * over one pool of hbase.hregion.memstore.mslab.chunksize chunks: an {@link OffheapChunkPool} of
     * chunkpool.maxsize x hbase.regionserver.offheap.global.memstore.size MB when that is > 0, else a
     * {@link HeapChunkPool} of at most chunkpool.maxsize x {@code globalMemstoreLimit} bytes.
     *
     * @throws ConfigurationException on an out-of-range value, an off-heap memstore without MSLAB, or an
     *                                off-heap pool this JVM cannot reserve
     */
    public static CellStorage.Factory fromConf(Configuration conf, long globalMemstoreLimit) {
        if (conf.getBoolean(StorageKeys.MSLAB_ENABLED, StorageKeys.DEFAULT_MSLAB_ENABLED)) {
            return mslab(conf, globalMemstoreLimit);
        }
        if (offheapMb(conf) > 0) {
            throw new ConfigurationException(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE + " > 0 needs "
                + StorageKeys.MSLAB_ENABLED + "=true (off-heap cells live in MSLAB chunks)");
        }
        return PlainCellStorage.FACTORY;
    }

    /**
     * The MSLAB storages of {@link #fromConf} (hbase.hregion.memstore.mslab.enabled=true), typed: the
     * compacting index needs them.
     *
     * @throws ConfigurationException on an out-of-range value, or an off-heap pool this JVM cannot reserve
     */
    public static MslabCellStorage.Factory mslab(Configuration conf, long globalMemstoreLimit) {
        long offheapMb = offheapMb(conf);
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
        ChunkPool pool;
        if (offheapMb > 0) {
            long chunks = (long) (poolFraction * (double) (offheapMb << 20)) / chunkSize;
            if (chunks > Integer.MAX_VALUE) {
                throw new ConfigurationException(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE + " is too large: " + offheapMb + " MB");
            }
            pool = new OffheapChunkPool(chunkSize, (int) chunks);
        } else {
            long chunks = (long) (poolFraction * (double) globalMemstoreLimit) / chunkSize;
            pool = new HeapChunkPool(chunkSize, (int) Math.min(Integer.MAX_VALUE, chunks));
        }
        return MslabCellStorage.factory(pool, maxAlloc);
    }

    /** hbase.regionserver.offheap.global.memstore.size in MB, checked (0: the chunks are on the heap). */
    private static long offheapMb(Configuration conf) {
        long offheapMb = conf.getLong(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, StorageKeys.DEFAULT_OFFHEAP_GLOBAL_MEMSTORE_SIZE);
        if (offheapMb < 0) {
            throw new ConfigurationException(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE + " must be >= 0 (MB), got " + offheapMb);
        }
        return offheapMb;
    }
}
