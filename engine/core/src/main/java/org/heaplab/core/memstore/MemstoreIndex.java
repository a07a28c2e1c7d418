package org.heaplab.core.memstore;

import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * How a {@link Memstore} indexes its cells: the switch hbase.hregion.compacting.memstore.type, chosen
 * once at start-up ({@link Memstores#fromConf}). {@link SkipListIndex} (NONE, HBase's DefaultMemStore):
 * one skip list until the flush. {@link CompactingIndex} (BASIC, HBase's CompactingMemStore): the skip
 * list is flattened into a {@link CellChunkMap} whenever it passes the in-memory flush threshold.
 *
 * <p>Thread safety: {@link #put} is called by many writers at once, concurrently with readers of
 * {@link #segments}.
 */
interface MemstoreIndex {
    /** Indexes {@code stored} (a cell the memstore's storage owns); returns the cell it replaced, or null. */
    Cell put(Cell stored);

    /** The segments, newest first (a key in several: the first one's cell wins). */
    List<Segment> segments();

    /** Flattened (CellChunkMap) segments now held. */
    int flattenedSegments();
}
