package org.heaplab.core.memstore;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.Cells;
import org.heaplab.core.cell.KeyValue;

/**
 * The in-memory part of a store: a {@link ConcurrentSkipListMap} of KeyValues in {@link CellComparator}
 * order, the HBase 1.x shape (every cell its own heap object and byte[], plus a skip-list node: long-lived
 * objects that the old generation has to trace until the flush).
 *
 * <p>Flushing never moves cells: the region replaces its active Memstore with a fresh one and the old
 * instance becomes the snapshot that is written out and then dropped.
 *
 * <p>Size accounting: {@link #heapSize()} counts each cell's serialized bytes plus
 * {@link #CELL_HEAP_OVERHEAD} for the KeyValue object, the array header and the skip-list node.
 * A cell with the same key as an existing one (same row, column, timestamp and type) replaces it.
 *
 * <p>Thread safety: {@link #add} and the readers may run concurrently from any threads; a reader sees
 * each cell either entirely or not at all. Per-row atomicity across cells is the region's job (row locks).
 */
public final class Memstore {
    /** Approximate heap bytes per cell besides its serialized bytes: KeyValue object, byte[] header, node. */
    public static final int CELL_HEAP_OVERHEAD = 80;

    private final ConcurrentSkipListMap<KeyValue, KeyValue> cells = new ConcurrentSkipListMap<>(CellComparator.INSTANCE);
    private final AtomicLong heapSize = new AtomicLong();

    /** Adds a cell (kept as given: callers pass a cell that owns its array). Returns the change in heap size. */
    public long add(KeyValue kv) {
        KeyValue old = cells.put(kv, kv);
        long delta = cellHeapSize(kv) - (old == null ? 0 : cellHeapSize(old));
        heapSize.addAndGet(delta);
        return delta;
    }

    public static long cellHeapSize(KeyValue kv) {
        return kv.getLength() + CELL_HEAP_OVERHEAD;
    }

    /** Appends every cell of {@code row} to {@code out}, in cell order. */
    public void getRow(byte[] row, List<KeyValue> out) {
        for (Map.Entry<KeyValue, KeyValue> e : cells.tailMap(Cells.firstOnRow(row), true).entrySet()) {
            if (!Cells.hasRow(e.getKey(), row)) {
                break;
            }
            out.add(e.getValue());
        }
    }

    /** All cells in order (a weakly consistent live view; stable once the memstore is a snapshot). */
    public Collection<KeyValue> cells() {
        return cells.values();
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
