package org.heaplab.core.memstore;

import java.util.Iterator;
import org.heaplab.core.cell.Cell;

/**
 * A sorted set of a memstore's cells (HBase's Segment): the mutable skip list the writers add to
 * ({@link SkipListSegment}) or an immutable flattened one ({@link CellChunkMap}). At most one cell per
 * key (row, family, qualifier, timestamp, type) within a segment; the same key may be in several
 * segments of one memstore, and then the newest segment's cell wins.
 *
 * <p>The cells are views into the memstore's storage, valid while the memstore is held.
 */
interface Segment {
    /** Every cell, in cell order. */
    Iterator<Cell> iterator();

    /** The cells at or after {@code from}, in cell order. */
    Iterator<Cell> tailIterator(Cell from);

    int cellCount();
}
