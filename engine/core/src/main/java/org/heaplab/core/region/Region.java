package org.heaplab.core.region;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.StampedLock;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.io.StorageConstants;
import org.heaplab.core.storefile.StoreFileReader;
import org.heaplab.core.util.CrashPoints;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.wal.Mvcc;
import org.heaplab.core.wal.Wal;
import org.heaplab.core.wal.WriteEntry;
import org.heaplab.core.wal.WalRecord;
import org.heaplab.core.wal.WALEdit;
import org.heaplab.core.wal.WALKey;

/**
 * One region: the rows [startKey, endKey) of a table (empty start/end = unbounded), one {@link Store}
 * for the table's family, and the write path that ties it to the WAL.
 *
 * <p>Write path ({@link #preAppend}, {@link #postSync}): updates read lock, row write locks, MVCC begin =
 * WAL append, wait for the sync as the durability asks, memstore, unlock, MVCC complete. Flush:
 * under the updates write lock (no write in flight) the memstore becomes the snapshot and the WAL is
 * told; the snapshot is written to a store file outside the lock; the WAL may then drop old files.
 *
 * <p>Read path ({@link #get}, {@link #scan}): the {@link RegionReader} merges the active memstore, the
 * snapshot and every store file, newest first.
 *
 * <p>Thread safety: puts, gets, scans, flushes and compactions may run concurrently from any threads. Lock
 * order: incrementLock, then flushLock, then updates, then row locks. {@code maxSeqApplied} only grows; every edit with a
 * sequence id up to it is in the memstore or a store file once the updates write lock is held.
 */
final class Region {
    private final String table;
    private final String encodedName;
    private final byte[] startKey;
    private final byte[] endKey;
    private final Path regionDir;
    private final Store store;
    private final MemstorePressure pressure;
    private final RowLocks rowLocks = new RowLocks();
    /** Held by an increment across its get and put; separate stripes, as puts take rowLocks themselves. */
    private final RowLocks incrementLocks = new RowLocks();
    private final ReadCounters.Live readCounters;
    private final RowQueryCache queryCache;
    private final RegionReader reader;
    /** Read-held by every write in flight, write-held by a flush taking its snapshot; no owner thread. */
    private final StampedLock updates = new StampedLock();
    private final ReentrantLock flushLock = new ReentrantLock();
    private final AtomicLong maxSeqApplied;
    private final AtomicBoolean flushRequested = new AtomicBoolean();
    private volatile Wal wal;
    private volatile Mvcc mvcc;
    private volatile boolean closed;

    private Region(FsLayout.RegionMeta meta, Path regionDir, Store store, RegionServices services) {
        this.table = meta.table();
        this.encodedName = meta.encodedName();
        this.startKey = meta.startKey();
        this.endKey = meta.endKey();
        this.regionDir = regionDir;
        this.store = store;
        this.pressure = services.pressure();
        this.readCounters = services.readCounters();
        this.queryCache = services.queryCache();
        this.reader = new RegionReader(table, store, rowLocks, readCounters, queryCache);
        this.maxSeqApplied = new AtomicLong(store.flushedSequenceId());
    }

    /** Opens the region stored in {@code regionDir}. The WAL is attached later ({@link #attachWal}). */
    static Region open(Path regionDir, TableDescriptor desc, RegionServices services) throws IOException {
        FsLayout.RegionMeta meta = FsLayout.readRegionInfo(regionDir);
        Store store = Store.open(regionDir.resolve(FsLayout.familyDirName(desc.family())),
            regionDir.resolve(StorageConstants.TMP_DIR), desc, services.cache(), services.readPath(),
            services.memstores(), services.tuning());
        return new Region(meta, regionDir, store, services);
    }

    /** Attaches the server's WAL and this region's MVCC (one per region, its class chosen at start-up). */
    void attachWal(Wal wal, Mvcc mvcc) {
        this.wal = wal;
        this.mvcc = mvcc;
    }

    String table() {
        return table;
    }

    String encodedName() {
        return encodedName;
    }

    byte[] startKey() {
        return startKey;
    }

    /** Exclusive; empty for the last region. */
    byte[] endKey() {
        return endKey;
    }

    /** Highest sequence id already in store files: WAL edits up to it need no replay. */
    long flushedSequenceId() {
        return store.flushedSequenceId();
    }

    long memstoreSize() {
        return store.memstoreSize();
    }

    /** Sets the flush-requested flag; true when it was clear (the caller should queue a flush). */
    boolean markFlushRequested() {
        return flushRequested.compareAndSet(false, true);
    }

    /*
     * A write of this region's cells (timestamps set) in HBase 2.x's order, in three stages that the write
     * path runs on one thread (legacy) or on three (staged), see RegionPut:
     *   preAppend: updates read lock, the rows' write locks, MVCC begin = WAL append (fixes the sequence id)
     *   (the sync: wait for it as the durability asks; a failed sync leaves the memstore untouched)
     *   postSync:  the memstore copies each cell in; unlock; MVCC complete
     * then the write is visible once the read point reaches it (awaitVisible / whenVisible).
     */

    /**
     * Pre-append stage: takes the updates read lock and the rows' write locks and begins the MVCC write
     * (the WAL append). Never waits for a sync; the locks stay held until {@link #postSync}, which
     * another thread may call. {@code w}'s durability is resolved or USE_DEFAULT (the WAL resolves it).
     */
    void preAppend(RegionPut w) throws IOException {
        long stamp = updates.readLock();
        RowLocks.Held locked = null;
        try {
            if (closed) {
                throw new TableNotFoundException(table);
            }
            // HRegion.doMiniBatchMutate: the puts' family maps into one WALEdit, a WALKeyImpl per append
            WALEdit edit = new WALEdit(w.cellCount);
            for (int i = 0; i < w.puts.size(); i++) {
                edit.add(w.puts.get(i).familyCellMap());
            }
            locked = rowLocks.lockWriteRowsOf(edit.cells());
            WriteEntry e = wal.begin(mvcc, new WALKey(table, encodedName), edit, w.durability);
            w.held(stamp, locked, edit, e);
        } catch (IOException | RuntimeException e) {
            if (locked != null) {
                rowLocks.unlockWrite(locked);
            }
            updates.unlockRead(stamp);
            throw e;
        }
    }

    /**
     * Post-sync stage (any thread): applies the write to the memstore unless its sync failed, releases
     * its locks and completes its MVCC write (always, or the read point stops for good). Does not wait
     * for the write to become visible.
     */
    void postSync(RegionPut w, Throwable syncFailure) {
        WriteEntry e = w.entry(); // the volatile read first: it makes the stage's other fields visible here
        try {
            if (syncFailure == null) {
                apply(w.edit().cells(), e.seqId());
            }
        } finally {
            rowLocks.unlockWrite(w.rows());
            updates.unlockRead(w.updatesStamp());
            mvcc.complete(e);
        }
    }

    /** Blocks until the read point reaches {@code w} (after {@link #postSync}). */
    void awaitVisible(RegionPut w) throws InterruptedIOException {
        try {
            mvcc.awaitVisible(w.entry());
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the MVCC read point");
        }
    }

    /** Completes once the read point reaches {@code w} (after {@link #postSync}); nobody blocks. */
    CompletableFuture<Void> whenVisible(RegionPut w) {
        return mvcc.whenVisible(w.entry());
    }

    /** The region's MVCC (its implementation chosen at start-up by hbase.hregion.mvcc.preassign). */
    Mvcc mvcc() {
        return mvcc;
    }

    /** Re-applies a WAL edit at open (no WAL append). */
    void replay(WalRecord record) {
        apply(record.cells(), record.seqId()); // the memstore's storage copies each cell
    }

    private void apply(List<? extends Cell> cells, long seqId) {
        long delta = 0;
        Cell previous = null;
        for (int i = 0; i < cells.size(); i++) { // indexed: no iterator per put
            Cell kv = cells.get(i);
            if (queryCache.enabled() && (previous == null || CellComparator.compareRows(previous, kv) != 0)) {
                queryCache.invalidate(table, kv.row()); // under the row's write lock, before it is visible
            }
            previous = kv;
            delta += store.add(kv);
        }
        pressure.add(delta);
        maxSeqApplied.accumulateAndGet(seqId, Math::max);
    }

    /**
     * The newest live version of the columns of {@code row} (all columns when {@code qualifiers} is empty),
     * deletes applied, in cell order: see {@link RegionReader#get}.
     */
    List<Cell> get(byte[] row, List<byte[]> qualifiers, ReadScope scope) throws IOException {
        return reader.get(row, qualifiers, scope);
    }

    /** One scan batch in this region: see {@link RegionReader#scan}. */
    boolean scan(byte[] startRow, byte[] stopRow, int maxRows, ReadScope scope, List<List<Cell>> out)
        throws IOException {
        return reader.scan(startRow, stopRow, maxRows, scope, out);
    }

    /**
     * The lock an increment holds across its read and its write of {@code row} (striped: rows may share
     * one). It has no owner thread and is not reentrant. Plain puts do not take it: they are not
     * blocked by increments, and a put to the same column may interleave with an increment.
     */
    Lock incrementLock(byte[] row) {
        return incrementLocks.writeLock(row);
    }

    /** Flushes the memstore to a new store file (and a pending snapshot first, if a flush failed). */
    void flush() throws IOException {
        flushLock.lock();
        try {
            flushRequested.set(false);
            if (closed) {
                return;
            }
            if (store.view().snapshot() != null) {
                finishFlush(); // retry of a failed flush; its WAL entry stays conservative
            }
            long stamp = updates.writeLock();
            try {
                if (!store.snapshot(maxSeqApplied.get())) {
                    return;
                }
                if (wal != null) {
                    wal.startFlush(encodedName);
                }
            } finally {
                updates.unlockWrite(stamp);
            }
            CrashPoints.reach(CrashPoints.FLUSH_AFTER_SNAPSHOT);
            finishFlush();
        } finally {
            flushLock.unlock();
        }
    }

    private void finishFlush() throws IOException {
        long flushed;
        try {
            flushed = store.flushSnapshot();
        } catch (IOException | RuntimeException e) {
            if (wal != null) {
                wal.abortFlush(encodedName);
            }
            throw new IOException("flush of region " + encodedName + " of " + table + " failed: " + e.getMessage(), e);
        }
        pressure.release(flushed);
        CrashPoints.reach(CrashPoints.FLUSH_BEFORE_WAL_MARKED);
        if (wal != null) {
            wal.completeFlush(encodedName);
        }
    }

    void compact() throws IOException {
        if (!closed) {
            store.compact();
        }
    }

    RegionInfo info() {
        List<StoreFileInfo> files = new ArrayList<>();
        for (StoreFileReader r : store.view().files()) {
            files.add(new StoreFileInfo(r.path().toString(), r.sizeBytes(), r.trailer().cellCount()));
        }
        return new RegionInfo(table, encodedName, startKey.clone(), endKey.clone(), memstoreSize(), List.copyOf(files));
    }

    /** Takes the region offline without flushing (table dropped): later puts fail, memory is released. */
    void drop() throws IOException {
        flushLock.lock();
        try {
            long stamp = updates.writeLock();
            try {
                closed = true;
                pressure.release(store.memstoreSize());
            } finally {
                updates.unlockWrite(stamp);
            }
            if (wal != null) {
                wal.forgetRegion(encodedName);
            }
            store.close();
        } finally {
            flushLock.unlock();
        }
    }

    /** Flushes and takes the region offline (clean close). */
    void close() throws IOException {
        flush();
        flushLock.lock();
        try {
            long stamp = updates.writeLock();
            try {
                closed = true;
            } finally {
                updates.unlockWrite(stamp);
            }
            store.close();
        } finally {
            flushLock.unlock();
        }
    }

    Path dir() {
        return regionDir;
    }
}
