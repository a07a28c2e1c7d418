package org.heaplab.core.region;

import java.util.Collections;
import java.util.concurrent.locks.Lock;
import org.heaplab.core.storefile.StoreFileTuning;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCaches;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.cache.ReadPaths;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.memstore.Memstores;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.util.Futures;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.wal.Mvcc;
import org.heaplab.core.wal.Wal;
import org.heaplab.core.wal.WalFailure;

/**
 * All tables and regions online on one region server: the storage engine's entry point for the RPC layer.
 * Opening replays the WAL; closing flushes every memstore and closes the WAL; {@link #abort} does neither.
 *
 * <p>Write path of {@link #put}: validate; wait while all memstores together are over the global limit (holding
 * nothing); stamp LATEST_TIMESTAMP cells with the current time; split the batch by region; per region
 * ({@link RegionPut}) begin an MVCC write = append one WAL record, wait for its sync as the durability asks and
 * apply it to the memstore under row locks; queue a flush for any region over hbase.hregion.memstore.flush.size.
 * {@link #prepare} stops before the regions' stages, for the server's staged write path.
 *
 * <p>Read path: {@link #get}, {@link #multiGet} and {@link #scan} merge each region's memstores and store files
 * (see {@link Region#get}, {@link Region#scan}); cells served from store files may point into cache blocks that
 * the caller's {@link ReadScope} holds (zero-copy read path): use them only until the scope is closed, after the
 * response is written. {@link #incrementLock} makes a read-modify-write atomic against other increments. The
 * row query cache (heaplab.regionserver.query.cache.size) answers repeated gets; the block cache
 * (BlockCaches.fromConf) and the read path (heaplab.regionserver.read.path) are chosen once here.
 *
 * <p>The pieces: the tables by name ({@link TableCatalog}), a batch checked, stamped and split by region
 * ({@link WriteBatches}), a scan across regions ({@link OnlineTable#scan}), one region's data ({@link Region}).
 *
 * <p>Thread safety: every method may be called by many handler threads at once. Table creation and
 * removal are serialized among themselves and with {@link #close}.
 */
public final class OnlineRegions implements Closeable {
    private final BlockCache cache;
    private final ReadPath readPath;
    private final RowQueryCache queryCache;
    private final ReadCounters.Live readCounters = new ReadCounters.Live();
    private final RegionServices services;
    private final MemstorePressure pressure;
    private final long flushSize;
    /** Run after each region's part of a put is applied; one object, not one per put. */
    private final Consumer<Region> flushIfFull = this::requestFlushIfFull;
    private final Object ddlLock = new Object();
    private final TableCatalog tables;
    private volatile Wal wal;
    private volatile MemstoreFlusher flusher;
    private final Memstore.Factory memstores;
    /** Makes a region's MVCC: the class hbase.hregion.mvcc.preassign chose once, at open. */
    private final LongFunction<Mvcc> mvccs;
    private final StorageStats stats;
    private volatile boolean closed;

    private OnlineRegions(FsLayout layout, BlockCache cache, ReadPath readPath, RowQueryCache queryCache, long globalLimit,
                          long flushSize, Memstore.Factory memstores, Configuration conf, StoreFileTuning tuning) {
        this.mvccs = Mvcc.chosenBy(conf);
        this.memstores = memstores;
        this.cache = cache;
        this.readPath = readPath;
        this.queryCache = queryCache;
        this.flushSize = flushSize;
        this.pressure = new MemstorePressure(globalLimit, () -> flusher.requestGlobalFlush());
        this.services = new RegionServices(cache, readPath, pressure, memstores, readCounters, queryCache, tuning);
        this.tables = new TableCatalog(layout, services, () -> wal, this::newMvcc, ddlLock);
        this.stats = new StorageStats(() -> wal, tables, cache, readPath, queryCache, readCounters, memstores, pressure,
            Mvcc.describe(conf));
    }

    /**
     * Opens (or creates) the data under hbase.rootdir and replays the WAL, with the block cache
     * {@link BlockCaches#fromConf} builds. A bad configuration value throws ConfigurationException (one
     * line naming the key).
     */
    public static OnlineRegions open(Configuration conf) throws IOException {
        ReadPaths.fromConf(conf); // validate the cheap switches before allocating cache memory
        RowQueryCache.fromConf(conf);
        StoreFileTuning.fromConf(conf);
        return open(conf, BlockCaches.fromConf(conf));
    }

    /** {@link #open(Configuration)} with a given block cache (tests wrap one to count its references); closes it. */
    static OnlineRegions open(Configuration conf, BlockCache cache) throws IOException {
        try {
            return openWith(conf, cache);
        } catch (IOException | RuntimeException e) {
            cache.close();
            throw e;
        }
    }

    private static OnlineRegions openWith(Configuration conf, BlockCache cache) throws IOException {
        FsLayout layout = new FsLayout(FsLayout.rootDir(conf));
        Files.createDirectories(layout.walDir);
        Files.createDirectories(layout.dataDir);
        AtomicFiles.deleteRecursively(layout.tmpDir());
        AtomicFiles.deleteRecursively(layout.trashDir());
        long globalLimit = MemstorePressure.globalLimit(conf);
        long flushSize = conf.getLong(StorageKeys.MEMSTORE_FLUSH_SIZE, StorageKeys.DEFAULT_MEMSTORE_FLUSH_SIZE);
        OnlineRegions o = new OnlineRegions(layout, cache, ReadPaths.fromConf(conf), RowQueryCache.fromConf(conf),
            globalLimit, flushSize, Memstores.fromConf(conf, globalLimit), conf, StoreFileTuning.fromConf(conf));
        try {
            o.tables.load();
            Map<String, Region> byName = new HashMap<>();
            o.tables.allRegions().forEach(r -> byName.put(r.encodedName(), r));
            long maxSeq = WalReplay.replay(layout.walDir, byName, flushSize, o.pressure);
            o.wal = new Wal(layout.walDir, conf.getLong(StorageKeys.WAL_ROLL_SIZE, StorageKeys.DEFAULT_WAL_ROLL_SIZE),
                conf.getBoolean(StorageKeys.WAL_HSYNC, StorageKeys.DEFAULT_WAL_HSYNC), maxSeq + 1, conf);
            o.tables.allRegions().forEach(r -> r.attachWal(o.wal, o.newMvcc()));
            o.flusher = new MemstoreFlusher(() -> o.tables.allRegions().toList(), o.pressure);
            return o;
        } catch (IOException | RuntimeException e) {
            o.abort();
            throw e;
        }
    }

    /** Counters and descriptions for the server's metrics and start-up log. */
    public StorageStats stats() {
        return stats;
    }

    /** A new region's MVCC (its read point set when the WAL is attached). */
    private Mvcc newMvcc() {
        return mvccs.apply(-1);
    }

    /** Creates a table whose regions are split at {@code splitKeys} (sorted, distinct; may be empty); holds them all. */
    public void createTable(TableDescriptor desc, byte[][] splitKeys) throws IOException {
        int[] all = new int[splitKeys.length + 1];
        Arrays.setAll(all, i -> i);
        createTable(desc, splitKeys, System.currentTimeMillis(), all);
    }

    /**
     * Creates a table holding only the regions {@code regionIndexes} (0 = the first) of those the split keys
     * define: the master's OPEN_REGIONS. Encoded region names derive from the table, start key,
     * {@code createdMs} and index, so every server (and the master) derives the same names. Idempotent: when
     * the table already exists with exactly these regions of the same creation, nothing happens.
     *
     * @throws TableExistsException when the table exists otherwise (another creation, other regions)
     * @throws IllegalArgumentException for bad split keys, or indexes out of range, repeated or none
     */
    public void createTable(TableDescriptor desc, byte[][] splitKeys, long createdMs, int[] regionIndexes) throws IOException {
        checkOpen();
        tables.create(desc, splitKeys, createdMs, regionIndexes);
    }

    public void dropTable(String table) throws IOException {
        checkOpen();
        tables.drop(table);
    }

    public boolean tableExists(String table) {
        return tables.exists(table);
    }

    public TableDescriptor describe(String table) throws IOException {
        return tables.get(table).descriptor();
    }

    /** Table names, sorted. */
    public List<String> tables() {
        return tables.names();
    }

    /** {@link #put(String, List, Durability)} with the table's durability. */
    public CompletableFuture<Void> put(String table, List<? extends Cell> cells) throws IOException {
        return put(table, cells, Durability.USE_DEFAULT);
    }

    /**
     * Writes a batch of cells (any rows, any regions of the table). When this returns the batch is
     * visible to gets and as durable as its durability asks: {@code durability} unless USE_DEFAULT,
     * else the table's, whose USE_DEFAULT is SYNC_WAL (FSYNC_WAL with hbase.wal.hsync=true). Cells with
     * LATEST_TIMESTAMP get the server's current time (deletes included). Atomic per row; not across
     * rows of different regions.
     *
     * @return completes (normally or not) once the WAL no longer reads {@code cells}: with ASYNC_WAL
     *     that is later than this return. A caller whose cells live in a reused buffer (a pooled
     *     request buffer) must not release it before.
     * @throws NoSuchColumnFamilyException when a cell's family is not the table's
     * @throws IllegalArgumentException    when a cell's type is not Put or a Delete type
     */
    public CompletableFuture<Void> put(String table, List<? extends Cell> cells, Durability durability)
        throws IOException {
        return batchMutate(table, PutDecoder.toPuts(cells), durability);
    }

    /**
     * {@link #put(String, List, Durability)} of decoded {@link Put}s (HRegion.batchMutate): the puts'
     * family maps are stamped in place.
     */
    public CompletableFuture<Void> batchMutate(String table, List<Put> puts, Durability durability) throws IOException {
        List<RegionPut> parts = prepareBatch(table, puts, durability);
        if (parts.size() == 1) { // the common case (a single put, a batch of one region)
            return parts.get(0).writeOnCallingThread();
        }
        List<CompletableFuture<Void>> walDone = new ArrayList<>(parts.size());
        try {
            for (RegionPut p : parts) {
                walDone.add(p.writeOnCallingThread());
            }
        } catch (IOException | RuntimeException e) {
            // regions written before the failure: their appends may still read the cells
            walDone.forEach(f -> e.addSuppressed(new CellsStillInUse(f)));
            throw e;
        }
        return Futures.allSettled(walDone);
    }

    /** {@link #prepareBatch} of {@code cells} made into Puts ({@link PutDecoder#toPuts}). */
    public List<RegionPut> prepare(String table, List<? extends Cell> cells, Durability durability) throws IOException {
        return prepareBatch(table, PutDecoder.toPuts(cells), durability);
    }

    /**
     * The start of every put, on either write path: validates and stamps the puts' cells (see {@link #put}),
     * waits while the memstores are over the global limit, resolves the durability and splits the
     * batch by region. The caller then moves each {@link RegionPut} through its stages: on the calling
     * thread (the server's LegacyWritePath, or {@link #batchMutate} in process) or on the staged path's
     * threads.
     */
    public List<RegionPut> prepareBatch(String table, List<Put> puts, Durability durability) throws IOException {
        checkOpen();
        OnlineTable t = tables.get(table);
        int cells = WriteBatches.validate(t, puts);
        Durability d = durability != Durability.USE_DEFAULT ? durability : t.descriptor().durability();
        if (cells == 0) {
            return List.of();
        }
        pressure.awaitBelowLimit();
        Region only = WriteBatches.singleRegion(t, puts);
        if (only != null) { // no grouping at all
            return List.of(new RegionPut(only, puts, d, flushIfFull));
        }
        List<RegionPut> parts = new ArrayList<>();
        for (Map.Entry<Region, List<Put>> e : WriteBatches.byRegion(t, puts).entrySet()) {
            parts.add(new RegionPut(e.getKey(), e.getValue(), d, flushIfFull));
        }
        return parts;
    }

    /** Queues a flush of a region whose memstore reached hbase.hregion.memstore.flush.size. */
    private void requestFlushIfFull(Region r) {
        if (r.memstoreSize() >= flushSize) {
            flusher.requestFlush(r);
        }
    }

    /**
     * The newest live version of the columns {@code qualifiers} of {@code row} (empty: every column),
     * deletes applied, in cell order (families keep one version). Cells are valid until {@code scope}
     * is closed; the list may be unmodifiable.
     */
    public List<Cell> get(String table, byte[] row, List<byte[]> qualifiers, ReadScope scope) throws IOException {
        checkOpen();
        return tables.get(table).regionFor(row).get(row, qualifiers, scope);
    }

    /** {@link #get} of every column of each row, rows in any regions; one result per row, in order (empty: no live cells). */
    public List<List<Cell>> multiGet(String table, List<byte[]> rows, ReadScope scope) throws IOException {
        return multiGet(table, rows, Collections.nCopies(rows.size(), List.of()), scope);
    }

    /** {@link #get} of each row with its own qualifiers (empty: every column); one result per row, in order. */
    public List<List<Cell>> multiGet(String table, List<byte[]> rows, List<List<byte[]>> qualifiers, ReadScope scope)
        throws IOException {
        checkOpen();
        if (qualifiers.size() != rows.size()) {
            throw new IllegalArgumentException(rows.size() + " rows but " + qualifiers.size() + " qualifier lists");
        }
        OnlineTable t = tables.get(table);
        List<List<Cell>> out = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            byte[] row = rows.get(i);
            out.add(t.regionFor(row).get(row, qualifiers.get(i), scope));
        }
        return out;
    }

    /**
     * One batch of a scan: up to {@code maxRows} rows with live cells in [{@code startRow}, {@code stopRow})
     * in row order, crossing region boundaries. Stateless: call again with the batch's
     * {@link ScanBatch#nextStartRow()} until it is null. Rows written meanwhile may or may not be seen;
     * each row is seen all or nothing per put.
     *
     * @param startRow inclusive; empty: the table's first row
     * @param stopRow  exclusive; empty: to the table's end
     * @throws IllegalArgumentException when maxRows is not positive
     */
    public ScanBatch scan(String table, byte[] startRow, byte[] stopRow, int maxRows, ReadScope scope)
        throws IOException {
        checkOpen();
        if (maxRows <= 0) {
            throw new IllegalArgumentException("scan caching (rows per batch) must be > 0, got " + maxRows);
        }
        return tables.get(table).scan(startRow, stopRow, maxRows, scope);
    }

    /**
     * The lock an increment holds while it reads {@code row}, computes and puts the new value through
     * the normal write path: increments of one row are atomic against each other. Striped per region
     * (rows may share a stripe); no owner thread, not reentrant (take one at a time). Plain puts do not
     * take it: a put to the same column is not blocked and may be overwritten or win.
     */
    public Lock incrementLock(String table, byte[] row) throws IOException {
        checkOpen();
        return tables.get(table).regionFor(row).incrementLock(row);
    }

    public void flush(String table) throws IOException {
        checkOpen();
        for (Region r : tables.get(table).regions()) {
            r.flush();
        }
    }

    /** Merges each region's store files into one. */
    public void majorCompact(String table) throws IOException {
        checkOpen();
        for (Region r : tables.get(table).regions()) {
            r.compact();
        }
    }

    public List<RegionInfo> regions(String table) throws IOException {
        return tables.get(table).regions().stream().map(Region::info).toList();
    }

    /** Flushes every memstore, closes the WAL and deletes it when nothing is left to replay. */
    @Override
    public void close() throws IOException {
        synchronized (ddlLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        pressure.close();
        if (flusher != null) {
            flusher.close();
        }
        IOException failure = null;
        for (Region r : tables.allRegions().toList()) {
            try {
                r.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        try {
            if (wal != null) {
                wal.close(failure == null && !wal.hasUnflushedEdits());
            }
        } finally {
            cache.close(); // store files are closed: no block is in use any more
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The WAL's first I/O failure (puts fail from then on): the region server aborts on it, as HBase does. */
    public CompletableFuture<WalFailure> walFailure() {
        return wal.failure();
    }

    /** Takes the storage offline without flushing (a failed open, an abort): the WAL stays for replay. */
    public void abort() {
        closed = true;
        pressure.close();
        if (flusher != null) {
            flusher.close();
        }
        try {
            if (wal != null) {
                wal.close(false);
            }
        } catch (IOException ignored) {
            // the open's or the WAL's failure is the one to report
        }
        // the block cache: closed by open(conf, cache) after a failed open, by the process's end after an abort
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException("region server storage is closed");
        }
    }
}
