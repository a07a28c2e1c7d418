package org.heaplab.core.region;

import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.cache.CacheMetrics;
import org.heaplab.core.cache.CombinedBlockCache;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.cache.ReadPaths;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.wal.Wal;

/**
 * What the server's metrics endpoint and start-up log read from the storage engine: counters of the
 * WAL, the memstores, the caches and the read path, and one line per switch chosen at open. Read-only;
 * every value is read live from the part that owns it. From {@link OnlineRegions#stats()}.
 *
 * <p>Thread safety: every method may be called from any thread (the counters are atomic where they live).
 */
public final class StorageStats {
    private final Supplier<Wal> wal;
    private final TableCatalog tables;
    private final BlockCache cache;
    private final ReadPath readPath;
    private final RowQueryCache queryCache;
    private final ReadCounters.Live readCounters;
    private final Memstore.Factory memstores;
    private final MemstorePressure pressure;
    private final String mvccDescription;

    StorageStats(Supplier<Wal> wal, TableCatalog tables, BlockCache cache, ReadPath readPath, RowQueryCache queryCache,
                 ReadCounters.Live readCounters, Memstore.Factory memstores, MemstorePressure pressure,
                 String mvccDescription) {
        this.wal = wal;
        this.tables = tables;
        this.cache = cache;
        this.readPath = readPath;
        this.queryCache = queryCache;
        this.readCounters = readCounters;
        this.memstores = memstores;
        this.pressure = pressure;
        this.mvccDescription = mvccDescription;
    }

    /** WAL appends, filesystem flushes and forces so far. */
    public long walAppendCount() {
        return wal.get().appendCount();
    }

    public long walSyncCount() {
        return wal.get().syncCount();
    }

    public long walForceCount() {
        return wal.get().forceCount();
    }

    /** Gets (rows asked), scanned rows, store files read and skipped by bloom since open. */
    public ReadCounters readCounters() {
        return readCounters.snapshot();
    }

    /** The row query cache's counters (all zero when heaplab.regionserver.query.cache.size is 0). */
    public RowQueryCache.Metrics queryCacheMetrics() {
        return queryCache.metrics();
    }

    /** Memstore counters: cells, bytes, chunks, index. */
    public Memstore.MemstoreStats memstoreStats() {
        return memstores.stats();
    }

    public int regionCount() {
        return (int) tables.allRegions().count();
    }

    /** The server's block cache (tests check it with CacheLeakDetector through a real server). */
    public BlockCache blockCache() {
        return cache;
    }

    /** Block cache counters, one entry per cache. */
    public List<CacheMetrics> blockCacheMetrics() {
        return cache.metrics();
    }

    /** Bytes in all memstores together, and the global limit writers block at. */
    public long globalMemstoreSize() {
        return pressure.size();
    }

    public long globalMemstoreLimit() {
        return pressure.limit();
    }

    /** Which memstore cell storage this server uses (hbase.hregion.memstore.mslab.enabled and its kin). */
    public String cellStorageDescription() {
        return memstores.describe();
    }

    /**
     * The block cache {@link org.heaplab.core.cache.BlockCaches} chose (hbase.bucketcache.ioengine) and its
     * caches' capacities, for the start-up log: its class first, as the other switches' lines.
     */
    public String blockCacheDescription() {
        if (cache == BlockCache.NONE) {
            return "none (" + StorageKeys.BLOCK_CACHE_SIZE + " or " + StorageKeys.BLOCK_CACHE_BYTES + " is 0: no block is cached)";
        }
        String caches = cache.metrics().stream().map(m -> m.name() + " " + (m.capacityBytes() >> 20) + " MB")
            .collect(Collectors.joining(", "));
        String engine = cache instanceof CombinedBlockCache ? CacheKeys.BUCKET_CACHE_IOENGINE + "=" + CacheKeys.IOENGINE_OFFHEAP
            : CacheKeys.BUCKET_CACHE_IOENGINE + " unset";
        return cache.getClass().getSimpleName() + " (" + engine + ": " + caches + ")";
    }

    /** The read path every store file serves cached blocks through. */
    public String readPathDescription() {
        return readPath.getClass().getSimpleName() + " (" + ReadPaths.KEY + "=" + readPath.name() + ")";
    }

    /** The MVCC class every region uses (hbase.hregion.mvcc.preassign). */
    public String mvccDescription() {
        return mvccDescription;
    }
}
