package org.heaplab.core.memstore;

import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * The default index (hbase.hregion.compacting.memstore.type = NONE, HBase's DefaultMemStore): one
 * {@link SkipListSegment} takes every write until the store flushes the memstore. Per cell the heap
 * holds a skip-list node and a cell object for the memstore's whole life, wherever the cell bytes are.
 */
final class SkipListIndex implements MemstoreIndex {
    private final SkipListSegment active = new SkipListSegment();
    private final List<Segment> segments = List.of(active);

    @Override
    public Cell put(Cell stored) {
        return active.put(stored);
    }

    @Override
    public List<Segment> segments() {
        return segments;
    }

    @Override
    public int flattenedSegments() {
        return 0;
    }
}
