package org.heaplab.core.memstore;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.Cells;
import org.heaplab.core.cell.KeyValue;

/**
 * The in-memory part of a store. Its two switches, each chosen once at start-up ({@link Memstores}):
 * where the cell bytes live, a {@link CellStorage} (plain heap cells, or MSLAB chunks on or off heap),
 * and how they are indexed, a {@link MemstoreIndex} ({@link SkipListIndex}: one skip list until the
 * flush; {@link CompactingIndex}: the skip list is flattened into {@link CellChunkMap}s in memory).
 *
 * <p>Flushing never moves cells: the store replaces its active Memstore with a fresh one and the old
 * instance becomes the snapshot that is written out and then released.
 *
 * <p>Size accounting: {@link #heapSize()} counts each cell's serialized bytes plus
 * {@link #CELL_HEAP_OVERHEAD}, whatever the index; it drives flushes and the global memstore limit,
 * so every variant flushes after the same data. A cell with the same key as an existing one (same row,
 * column, timestamp and type) replaces it.
 *
 * <p>Ownership and lifetime: the memstore starts with one reference, its store's. Readers that may run
 * while a flush completes take one with {@link #tryRetain} and give it back with {@link #release}; the
 * store releases its own after the flush. At zero the storage is closed (MSLAB chunks return to the
 * pool), so a reader must copy out what it keeps: {@link #getRow} returns exported heap cells.
 *
 * <p>Thread safety: {@link #add} and the readers may run concurrently from any threads; a reader sees
 * each cell either entirely or not at all. Per-row atomicity across cells is the region's job (row locks).
 */
public final class Memstore {
    /** Approximate heap bytes per cell besides its serialized bytes: cell object, byte[] header, node. */
    public static final int CELL_HEAP_OVERHEAD = PlainCellStorage.CELL_HEAP_OVERHEAD;

    private final CellStorage storage;
    private final MemstoreIndex index;
    private final MemstoreCounters counters;
    private final AtomicLong heapSize = new AtomicLong();
    private final AtomicLong dataBytes = new AtomicLong();
    private final AtomicLong cells = new AtomicLong();
    private final AtomicInteger refs = new AtomicInteger(1);

    /** A skip-list memstore of plain heap cells (the 1.x memstore). */
    public Memstore() {
        this(new PlainCellStorage());
    }

    /** A skip-list memstore over {@code storage} (tools and tests; servers use {@link Memstores#fromConf}). */
    public Memstore(CellStorage storage) {
        this(storage, new SkipListIndex(), new MemstoreCounters());
    }

    Memstore(CellStorage storage, MemstoreIndex index, MemstoreCounters counters) {
        this.storage = storage;
        this.index = index;
        this.counters = counters;
    }

    /** A BASIC compacting memstore over {@code storage}, flattening past {@code threshold} bytes (tests). */
    public static Memstore compacting(MslabCellStorage storage, long threshold) {
        MemstoreCounters counters = new MemstoreCounters();
        return new Memstore(storage, new CompactingIndex(storage, threshold, counters), counters);
    }

    public static long cellHeapSize(Cell kv) {
        return kv.getSerializedLength() + CELL_HEAP_OVERHEAD;
    }

    /**
     * Copies {@code cell} into the storage (the caller's cell may be a view over a request buffer that
     * is reused after the call) and indexes it. Returns the change in {@link #heapSize()}.
     */
    public long add(Cell cell) {
        Cell kv = storage.copyIn(cell);
        Cell old = index.put(kv);
        long data = kv.getSerializedLength() - (old == null ? 0 : old.getSerializedLength());
        long delta = cellHeapSize(kv) - (old == null ? 0 : cellHeapSize(old));
        heapSize.addAndGet(delta);
        dataBytes.addAndGet(data);
        counters.dataBytes.add(data);
        if (old == null) {
            cells.incrementAndGet();
            counters.cells.increment();
        }
        return delta;
    }

    private Iterator<Cell> merged(Cell from) {
        List<Iterator<Cell>> its = new ArrayList<>();
        for (Segment s : index.segments()) {
            its.add(from == null ? s.iterator() : s.tailIterator(from));
        }
        return SegmentMerger.merge(its);
    }

    /** Appends every cell of {@code row} to {@code out}, in cell order, as heap cells the caller may keep. */
    public void getRow(byte[] row, List<KeyValue> out) {
        for (Iterator<Cell> it = merged(Cells.firstOnRow(row)); it.hasNext(); ) {
            Cell c = it.next();
            if (!hasRow(c, row)) {
                break;
            }
            out.add(storage.export(c));
        }
    }

    /**
     * The first row at or after {@code row} that has a cell here (a copy), or null when none has: with
     * {@link #getRow} a scan walks the memstore a row at a time (the region reads each row under its row
     * lock, so a scan sees all or none of a put's cells of that row).
     */
    public byte[] firstRowAtOrAfter(byte[] row) {
        Iterator<Cell> it = merged(Cells.firstOnRow(row));
        return it.hasNext() ? it.next().row() : null;
    }

    /** True when {@code c}'s row is {@code row}; no copy, whichever memory the cell is in. */
    static boolean hasRow(Cell c, byte[] row) {
        if (c instanceof KeyValue kv) {
            return CellComparator.compareRow(kv, row) == 0;
        }
        if (c.rowLength() != row.length) {
            return false;
        }
        ByteBufferKeyValue bb = (ByteBufferKeyValue) c;
        int at = bb.offset() + KeyValue.ROW_OFFSET + 2;
        for (int i = 0; i < row.length; i++) {
            if (bb.buffer().get(at + i) != row[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * All cells in order, as KeyValues valid only while the caller holds a reference (the store's,
     * during a flush): heap cells as they are, off-heap cells copied one at a time. A weakly consistent
     * live view; stable once the memstore is a snapshot.
     */
    public Iterable<KeyValue> cells() {
        return () -> new Iterator<>() {
            private final Iterator<Cell> it = merged(null);

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public KeyValue next() {
                Cell c = it.next();
                return c instanceof KeyValue kv ? kv : c.toOwnKeyValue();
            }
        };
    }

    /** Takes a reader's reference; false when the memstore was already released (read a newer view). */
    public boolean tryRetain() {
        while (true) {
            int n = refs.get();
            if (n <= 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives a reference back; the last one closes the storage (MSLAB chunks return to the pool). */
    public void release() {
        int n = refs.decrementAndGet();
        if (n == 0) {
            counters.cells.add(-cells.get());
            counters.dataBytes.add(-dataBytes.get());
            counters.flattenedSegments.add(-index.flattenedSegments());
            storage.close();
        } else if (n < 0) {
            throw new IllegalStateException("memstore released more often than retained");
        }
    }

    public CellStorage storage() {
        return storage;
    }

    public long heapSize() {
        return heapSize.get();
    }

    /** Serialized bytes of the cells held. */
    public long dataBytes() {
        return dataBytes.get();
    }

    /** Cells indexed (a key in several segments counts once per segment). */
    public int cellCount() {
        int n = 0;
        for (Segment s : index.segments()) {
            n += s.cellCount();
        }
        return n;
    }

    public boolean isEmpty() {
        return cells.get() == 0;
    }

    /** Flattened (CellChunkMap) segments now held (0 with the skip-list index). */
    public int flattenedSegments() {
        return index.flattenedSegments();
    }

    /** Makes the memstores of every store of the server; chosen once at start-up ({@link Memstores#fromConf}). */
    public interface Factory {
        Memstore create();

        /** For the start-up log: index and cell storage, with their parameters. */
        String describe();

        /** Live counters over every memstore this factory made that is not released yet. */
        MemstoreStats stats();
    }

    /**
     * What the metrics report: cells and serialized bytes in all memstores (active and snapshots), the
     * chunk pool's counters, the index kind ("CSLM" or "CHUNK_MAP") and flattened segments held.
     */
    public record MemstoreStats(long dataBytes, long cells, ChunkPool.ChunkStats chunks, String index, long flattenedSegments) {
    }
}
