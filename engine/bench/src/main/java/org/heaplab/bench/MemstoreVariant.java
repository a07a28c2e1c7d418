package org.heaplab.bench;

import java.util.Map;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.memstore.CellStorage;
import org.heaplab.core.memstore.CellStorages;

/**
 * The memstore variants {@link MemstoreInsertBenchmark} compares. Each is the set of site keys that
 * selects it, handed to the same start-up code the region server uses ({@link CellStorages#fromConf}),
 * so the benchmark measures exactly what a configured server would run. A new variant is one more
 * constant here (JMH runs every constant unless {@code -p variant=...} narrows it).
 */
public enum MemstoreVariant {
    /** HBase 1.x: every cell its own heap KeyValue and byte[]. */
    PLAIN(Map.of(StorageKeys.MSLAB_ENABLED, "false")),
    /** HBase 2.x MSLAB: cells copied into pooled 2 MB on-heap chunks. */
    MSLAB(Map.of(StorageKeys.MSLAB_ENABLED, "true"));

    /** The global memstore limit the chunk pool is sized from (its share: hbase.hregion.memstore.chunkpool.maxsize). */
    static final long GLOBAL_MEMSTORE_LIMIT = 1L << 30;

    private final Map<String, String> siteKeys;

    MemstoreVariant(Map<String, String> siteKeys) {
        this.siteKeys = siteKeys;
    }

    /** The keys a site file would set for this variant. */
    public Map<String, String> siteKeys() {
        return siteKeys;
    }

    /** The cell storage factory a server configured with {@link #siteKeys} would use. */
    CellStorage.Factory storages() {
        Configuration conf = new Configuration();
        siteKeys.forEach(conf::set);
        return CellStorages.fromConf(conf, GLOBAL_MEMSTORE_LIMIT);
    }
}
