package org.heaplab.core.region;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.CellCursor;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.storefile.StoreFileReader;

/**
 * The read side of one {@link Region}: gets and scan batches over its active memstore, its snapshot and
 * its store files, newest first, merged by {@link RowMerger} (newest live version per column, deletes
 * applied). Memstore cells are read under the row's read lock and copied onto the heap (MSLAB chunks may
 * return to the pool when a flush completes); store-file cells are what the reader serves: heap copies on
 * the heap-copy path, views into cached blocks held by the {@link ReadScope} on the zero-copy path.
 *
 * <p>Every read holds the memstores and files of one {@link Store.View} while it reads them and retries
 * with a newer view when a flush or compaction released one first.
 *
 * <p>Thread safety: any number of threads, beside the region's writes, flushes and compactions.
 */
final class RegionReader {
    private final String table;
    private final Store store;
    private final RowLocks rowLocks;
    private final ReadCounters.Live readCounters;
    private final RowQueryCache queryCache;

    RegionReader(String table, Store store, RowLocks rowLocks, ReadCounters.Live readCounters,
                 RowQueryCache queryCache) {
        this.table = table;
        this.store = store;
        this.rowLocks = rowLocks;
        this.readCounters = readCounters;
        this.queryCache = queryCache;
    }

    /**
     * The newest live version of the columns of {@code row} (all columns when {@code qualifiers} is empty),
     * deletes applied, in cell order. Answered from the row query cache when it holds the result.
     * Store files whose row bloom filter rules the row out are skipped. Cells are valid until
     * {@code scope} is closed; the list may be unmodifiable.
     */
    List<Cell> get(byte[] row, List<byte[]> qualifiers, ReadScope scope) throws IOException {
        readCounters.gets.increment();
        long stamp = queryCache.stamp(table, row);
        List<Cell> cached = queryCache.get(table, row, qualifiers);
        if (cached != null) {
            return cached;
        }
        List<Cell> result = read(row, qualifiers, scope);
        queryCache.put(table, row, qualifiers, result, stamp);
        return result;
    }

    private List<Cell> read(byte[] row, List<byte[]> qualifiers, ReadScope scope) throws IOException {
        while (true) {
            Store.View v;
            List<List<? extends Cell>> sources = new ArrayList<>();
            Lock lock = rowLocks.readLock(row);
            lock.lock();
            try {
                v = store.view();
                // Hold the memstores while reading them: a flush finishing meanwhile would otherwise
                // give MSLAB chunks back to the pool under our feet. getRow copies out what we keep.
                if (!retain(v.active(), v.snapshot())) {
                    continue; // released meanwhile: its cells are in a store file of a newer view
                }
                try {
                    if (!v.active().isEmpty()) { // under the row lock: a put of this row is all in or not begun
                        List<KeyValue> active = new ArrayList<>();
                        v.active().getRow(row, active);
                        sources.add(active);
                    }
                    if (v.snapshot() != null) {
                        List<KeyValue> snap = new ArrayList<>();
                        v.snapshot().getRow(row, snap);
                        sources.add(snap);
                    }
                } finally {
                    v.active().release();
                    if (v.snapshot() != null) {
                        v.snapshot().release();
                    }
                }
            } finally {
                lock.unlock();
            }
            List<StoreFileReader> retained = retainFiles(v);
            if (retained == null) {
                continue; // a compaction retired a file: take the newer view
            }
            try {
                for (StoreFileReader r : retained) {
                    if (!r.mightContainRow(row)) {
                        readCounters.storeFilesSkippedByBloom.increment();
                        continue;
                    }
                    readCounters.storeFilesRead.increment();
                    List<Cell> cells = new ArrayList<>();
                    r.getRow(row, scope, cells);
                    sources.add(cells);
                }
            } finally {
                releaseAll(retained);
            }
            return RowMerger.merge(sources, qualifiers);
        }
    }

    /** Retains every file of the view (newest first), or none and null when one was retired meanwhile. */
    private static List<StoreFileReader> retainFiles(Store.View v) throws IOException {
        List<StoreFileReader> retained = new ArrayList<>(v.files().size());
        for (StoreFileReader r : v.files()) {
            if (!r.tryRetain()) {
                releaseAll(retained);
                return null;
            }
            retained.add(r);
        }
        return retained;
    }

    private static void releaseAll(List<StoreFileReader> files) throws IOException {
        IOException failure = null;
        for (StoreFileReader r : files) {
            try {
                r.release();
            } catch (IOException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * One scan batch in this region: appends to {@code out} up to {@code maxRows} rows with live cells in
     * [{@code startRow}, {@code stopRow}) (stopRow empty: to the region's end; the caller clips it to
     * the region), each the row's cells as {@link #get} returns them. Rows whose cells are all deleted
     * are skipped and not counted.
     *
     * <p>Merges a cursor per source (active memstore, snapshot, each store file from startRow on, newest
     * first) with a {@link CursorMerger} and resolves each row with a {@link RowMerger.Resolver}. The
     * memstores and files are held only for this call: a scan keeps nothing between batches.
     *
     * @return true when the region has no cells left before stopRow (the caller moves to the next region)
     */
    boolean scan(byte[] startRow, byte[] stopRow, int maxRows, ReadScope scope, List<List<Cell>> out)
        throws IOException {
        while (true) {
            Store.View v = store.view();
            if (!retain(v.active(), v.snapshot())) {
                continue;
            }
            try {
                List<StoreFileReader> files = retainFiles(v);
                if (files == null) {
                    continue;
                }
                try {
                    List<CellCursor> cursors = new ArrayList<>(files.size() + 2);
                    cursors.add(new MemstoreCursor(v.active(), startRow, stopRow, rowLocks::readLock));
                    if (v.snapshot() != null) {
                        cursors.add(new MemstoreCursor(v.snapshot(), startRow, stopRow, null));
                    }
                    for (StoreFileReader r : files) {
                        cursors.add(r.cursor(startRow, scope));
                    }
                    return scanRows(new CursorMerger(cursors), stopRow, maxRows, out);
                } finally {
                    releaseAll(files);
                }
            } finally {
                v.active().release();
                if (v.snapshot() != null) {
                    v.snapshot().release();
                }
            }
        }
    }

    private boolean scanRows(CursorMerger cells, byte[] stopRow, int maxRows, List<List<Cell>> out) throws IOException {
        RowMerger.Resolver resolver = new RowMerger.Resolver(List.of());
        int rows = 0;
        while (rows < maxRows) {
            Cell first = cells.peek();
            if (first == null || beyond(first, stopRow)) {
                return true;
            }
            resolver.reset();
            List<Cell> row = new ArrayList<>();
            for (Cell c = first; c != null && CellComparator.compareRows(c, first) == 0; c = cells.peek()) {
                if (resolver.keep(c)) {
                    row.add(c);
                }
                cells.advance();
            }
            if (!row.isEmpty()) {
                out.add(row);
                rows++;
                readCounters.scannedRows.increment();
            }
        }
        Cell next = cells.peek();
        return next == null || beyond(next, stopRow);
    }

    private static boolean beyond(Cell c, byte[] stopRow) {
        return stopRow.length > 0 && CellComparator.compareRow(c, stopRow) >= 0;
    }

    private static boolean retain(Memstore active, Memstore snapshot) {
        if (!active.tryRetain()) {
            return false;
        }
        if (snapshot != null && !snapshot.tryRetain()) {
            active.release();
            return false;
        }
        return true;
    }
}
