package org.heaplab.bench;

import java.util.Map;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.memstore.Memstores;

/**
 * The memstore variants {@link MemstoreInsertBenchmark} compares. Each is the set of site keys that
 * selects it, handed to the same start-up code the region server uses ({@link Memstores#fromConf}), so
 * the benchmark measures exactly what a server configured that way would run. A new variant is one
 * more constant here (JMH runs every constant unless {@code -p variant=...} narrows it).
 */
public enum MemstoreVariant {
    /** HBase 1.x: every cell its own heap KeyValue and byte[], one skip list. */
    PLAIN(Map.of(StorageKeys.MSLAB_ENABLED, "false")),
    /** HBase 2.x MSLAB: cells copied into pooled 2 MB on-heap chunks, one skip list. */
    MSLAB(Map.of(StorageKeys.MSLAB_ENABLED, "true")),
    /** MSLAB over direct chunks reserved at start-up (hbase.regionserver.offheap.global.memstore.size, MB). */
    OFFHEAP_MSLAB(Map.of(StorageKeys.MSLAB_ENABLED, "true",
        StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, Long.toString(MemstoreVariant.OFFHEAP_MB))),
    /** On-heap MSLAB with BASIC in-memory flushes: the skip list is flattened into a CellChunkMap. */
    CHUNK_MAP(Map.of(StorageKeys.MSLAB_ENABLED, "true",
        StorageKeys.COMPACTING_MEMSTORE_TYPE, "BASIC")),
    /** The full 2.x off-heap write path: direct MSLAB chunks and a CellChunkMap index in them. */
    OFFHEAP_CHUNK_MAP(Map.of(StorageKeys.MSLAB_ENABLED, "true",
        StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, Long.toString(MemstoreVariant.OFFHEAP_MB),
        StorageKeys.COMPACTING_MEMSTORE_TYPE, "BASIC"));

    /** The on-heap global memstore limit the heap chunk pool is sized from (x hbase.hregion.memstore.chunkpool.maxsize). */
    static final long GLOBAL_MEMSTORE_LIMIT = 1L << 30;
    /** Off-heap pool size (MB): twice one benchmark memstore (100 000 PE cells, about 26 MB of chunks). */
    static final long OFFHEAP_MB = 64;

    private final Map<String, String> siteKeys;

    MemstoreVariant(Map<String, String> siteKeys) {
        this.siteKeys = siteKeys;
    }

    /** The keys a site file would set for this variant. */
    public Map<String, String> siteKeys() {
        return siteKeys;
    }

    /** The memstore factory a server configured with {@link #siteKeys} would use (one chunk pool per call). */
    Memstore.Factory memstores() {
        Configuration conf = new Configuration();
        siteKeys.forEach(conf::set);
        return Memstores.fromConf(conf, GLOBAL_MEMSTORE_LIMIT);
    }
}
