package org.heaplab.core.memstore;

import java.util.Locale;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;

/**
 * Chooses the memstore once at start-up from the configuration: the cell storage ({@link CellStorages}:
 * plain heap cells, or MSLAB over an on-heap or off-heap chunk pool) and the index ({@link SkipListIndex},
 * or {@link CompactingIndex}: BASIC in-memory flattening into a CellChunkMap). Every bad value fails
 * here with one line naming the key.
 */
public final class Memstores implements Memstore.Factory {
    private final CellStorage.Factory storages;
    /** BASIC: the same factory as {@link #storages}, typed, for the compacting index; null: skip lists. */
    private final MslabCellStorage.Factory compacting;
    private final long inMemoryFlushThreshold;
    private final MemstoreCounters counters = new MemstoreCounters();

    private Memstores(CellStorage.Factory storages, MslabCellStorage.Factory compacting, long inMemoryFlushThreshold) {
        this.storages = storages;
        this.compacting = compacting;
        this.inMemoryFlushThreshold = inMemoryFlushThreshold;
    }

    /** A factory of skip-list memstores over {@code storages} (tests, tools). */
    public static Memstore.Factory defaults(CellStorage.Factory storages) {
        return new Memstores(storages, null, Long.MAX_VALUE);
    }

    /**
     * @param globalMemstoreLimit the on-heap global memstore limit in bytes (sizes the on-heap chunk pool)
     * @throws ConfigurationException on an out-of-range or unknown value, or an off-heap pool this JVM
     *                                cannot reserve
     */
    public static Memstore.Factory fromConf(Configuration conf, long globalMemstoreLimit) {
        String type = conf.get(StorageKeys.COMPACTING_MEMSTORE_TYPE, StorageKeys.DEFAULT_COMPACTING_MEMSTORE_TYPE)
            .trim().toUpperCase(Locale.ROOT);
        String index = conf.get(StorageKeys.COMPACTING_MEMSTORE_INDEX, StorageKeys.DEFAULT_COMPACTING_MEMSTORE_INDEX)
            .trim().toUpperCase(Locale.ROOT);
        if (!type.equals("NONE") && !type.equals("BASIC")) {
            throw new ConfigurationException(StorageKeys.COMPACTING_MEMSTORE_TYPE + " must be NONE or BASIC, got "
                + type + " (EAGER and ADAPTIVE are not built)");
        }
        if (!index.equals("CHUNK_MAP")) {
            throw new ConfigurationException(StorageKeys.COMPACTING_MEMSTORE_INDEX + " must be CHUNK_MAP, got "
                + index + " (ARRAY_MAP is not built)");
        }
        boolean basic = type.equals("BASIC");
        if (basic && !conf.getBoolean(StorageKeys.MSLAB_ENABLED, StorageKeys.DEFAULT_MSLAB_ENABLED)) {
            throw new ConfigurationException(StorageKeys.COMPACTING_MEMSTORE_TYPE + "=BASIC needs "
                + StorageKeys.MSLAB_ENABLED + "=true (the CellChunkMap index points into MSLAB chunks)");
        }
        float factor = conf.getFloat(StorageKeys.INMEMORY_FLUSH_THRESHOLD_FACTOR, StorageKeys.DEFAULT_INMEMORY_FLUSH_THRESHOLD_FACTOR);
        if (!(factor > 0 && factor <= 1)) {
            throw new ConfigurationException(StorageKeys.INMEMORY_FLUSH_THRESHOLD_FACTOR + " must be in (0, 1], got " + factor);
        }
        long flushSize = conf.getLong(StorageKeys.MEMSTORE_FLUSH_SIZE, StorageKeys.DEFAULT_MEMSTORE_FLUSH_SIZE);
        long threshold = Math.max(1, (long) (factor * (double) flushSize));
        if (basic) {
            MslabCellStorage.Factory mslab = CellStorages.mslab(conf, globalMemstoreLimit);
            return new Memstores(mslab, mslab, threshold);
        }
        return new Memstores(CellStorages.fromConf(conf, globalMemstoreLimit), null, threshold);
    }

    @Override
    public Memstore create() {
        if (basic()) {
            MslabCellStorage storage = compacting.create();
            return new Memstore(storage, new CompactingIndex(storage, inMemoryFlushThreshold, counters), counters);
        }
        return new Memstore(storages.create(), new SkipListIndex(), counters);
    }

    @Override
    public String describe() {
        return (basic() ? "CompactingIndex (BASIC: skip list flattened into a CellChunkMap past "
            + inMemoryFlushThreshold + " bytes)" : "SkipListIndex (one skip list until the flush)") + " over "
            + storages.describe();
    }

    @Override
    public Memstore.MemstoreStats stats() {
        ChunkPool pool = storages.pool();
        return new Memstore.MemstoreStats(counters.dataBytes.sum(), counters.cells.sum(),
            pool == null ? ChunkPool.ChunkStats.NONE : pool.stats(), basic() ? "CHUNK_MAP" : "CSLM",
            counters.flattenedSegments.sum());
    }

    /** True with hbase.hregion.compacting.memstore.type=BASIC: compacting indexes over MSLAB storage. */
    private boolean basic() {
        return compacting != null;
    }

    /** The chunk pool, or null with plain cells (tests: leak checks). */
    public ChunkPool pool() {
        return storages.pool();
    }
}
