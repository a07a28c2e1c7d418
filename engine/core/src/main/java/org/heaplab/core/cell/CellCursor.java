package org.heaplab.core.cell;

import java.io.IOException;

/**
 * A forward cursor over cells in {@link CellComparator} order (one memstore segment or one store file,
 * from a start row on). Cells it returns are views valid while the read's scope is open.
 *
 * <p>Not thread safe.
 */
public interface CellCursor {
    /** The current cell, or null when the cursor is exhausted. */
    Cell peek();

    /** Moves to the next cell. */
    void advance() throws IOException;
}
