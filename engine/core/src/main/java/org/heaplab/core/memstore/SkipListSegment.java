package org.heaplab.core.memstore;

import java.util.Iterator;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;

/**
 * The mutable segment: a {@link ConcurrentSkipListMap} of cells in {@link CellComparator} order (both
 * HBase versions' default memstore index). Per cell it keeps a skip-list node, sometimes index nodes,
 * and the cell object itself on the heap, all long-lived until the flush. Compared by
 * {@link CellComparator} (garbage-free for off-heap cells too).
 *
 * <p>Thread safety: {@link #put} and the readers may run concurrently (weakly consistent iteration).
 */
final class SkipListSegment implements Segment {
    private final ConcurrentSkipListMap<Cell, Cell> cells = new ConcurrentSkipListMap<>(CellComparator.INSTANCE);
    private final AtomicLong heapSize = new AtomicLong();

    /** Indexes {@code kv} (a cell the memstore's storage owns); returns the cell it replaced, or null. */
    Cell put(Cell kv) {
        Cell old = cells.put(kv, kv);
        heapSize.addAndGet(Memstore.cellHeapSize(kv) - (old == null ? 0 : Memstore.cellHeapSize(old)));
        return old;
    }

    /** The memstore size this segment accounts for: serialized bytes + {@link Memstore#CELL_HEAP_OVERHEAD} per cell. */
    long heapSize() {
        return heapSize.get();
    }

    @Override
    public Iterator<Cell> iterator() {
        return cells.values().iterator();
    }

    @Override
    public Iterator<Cell> tailIterator(Cell from) {
        return cells.tailMap(from, true).values().iterator();
    }

    @Override
    public int cellCount() {
        return cells.size();
    }

    boolean isEmpty() {
        return cells.isEmpty();
    }
}
