package org.heaplab.core.memstore;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.Cells;
import org.heaplab.core.cell.KeyValue;

/**
 * The in-memory part of a store: a {@link ConcurrentSkipListMap} of KeyValues in {@link CellComparator}
 * order, whose bytes live in a {@link CellStorage}: {@link PlainCellStorage} (1.x: every cell its own
 * heap object and byte[]) or {@link MslabCellStorage} (2.x: cells are views into pooled chunks).
 *
 * <p>Flushing never moves cells: the region replaces its active Memstore with a fresh one and the old
 * instance becomes the snapshot that is written out and then released.
 *
 * <p>Size accounting: {@link #heapSize()} counts each cell's serialized bytes plus
 * {@link #CELL_HEAP_OVERHEAD} for the KeyValue object, the array header and the skip-list node.
 * A cell with the same key as an existing one (same row, column, timestamp and type) replaces it.
 *
 * <p>Ownership and lifetime: the memstore starts with one reference, its store's. Readers that may run
 * while a flush completes take one with {@link #tryRetain} and give it back with {@link #release}; the
 * store releases its own after the flush. At zero the storage is closed (MSLAB chunks return to the
 * pool), so a reader must copy out what it keeps: {@link #getRow} returns exported cells.
 *
 * <p>Thread safety: {@link #add} and the readers may run concurrently from any threads; a reader sees
 * each cell either entirely or not at all. Per-row atomicity across cells is the region's job (row locks).
 */
public final class Memstore {
    /** Approximate heap bytes per cell besides its serialized bytes: KeyValue object, byte[] header, node. */
    public static final int CELL_HEAP_OVERHEAD = PlainCellStorage.CELL_HEAP_OVERHEAD;

    private final ConcurrentSkipListMap<KeyValue, KeyValue> cells = new ConcurrentSkipListMap<>(CellComparator.INSTANCE);
    private final AtomicLong heapSize = new AtomicLong();
    private final AtomicInteger refs = new AtomicInteger(1);
    private final CellStorage storage;

    /** A memstore of plain heap cells (the 1.x storage). */
    public Memstore() {
        this(new PlainCellStorage());
    }

    public Memstore(CellStorage storage) {
        this.storage = storage;
    }

    /**
     * Copies {@code cell} into the storage (the caller's cell may be a view over a request buffer
     * that is reused after the call) and indexes it. Returns the change in heap size.
     */
    public long add(Cell cell) {
        KeyValue kv = storage.copyIn(cell);
        KeyValue old = cells.put(kv, kv);
        long delta = cellHeapSize(kv) - (old == null ? 0 : cellHeapSize(old));
        heapSize.addAndGet(delta);
        return delta;
    }

    public static long cellHeapSize(KeyValue kv) {
        return kv.getLength() + CELL_HEAP_OVERHEAD;
    }

    /** Appends every cell of {@code row} to {@code out}, in cell order, as cells the caller may keep. */
    public void getRow(byte[] row, List<KeyValue> out) {
        for (Map.Entry<KeyValue, KeyValue> e : cells.tailMap(Cells.firstOnRow(row), true).entrySet()) {
            if (!Cells.hasRow(e.getKey(), row)) {
                break;
            }
            out.add(storage.export(e.getValue()));
        }
    }

    /**
     * All cells in order (a weakly consistent live view; stable once the memstore is a snapshot). The
     * cells are valid only while the caller holds a reference (the store's, during a flush).
     */
    public Collection<KeyValue> cells() {
        return cells.values();
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

    public int cellCount() {
        return cells.size();
    }

    public boolean isEmpty() {
        return cells.isEmpty();
    }
}
