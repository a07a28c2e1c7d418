package org.heaplab.core.encoding;

import org.heaplab.core.cell.Cell;

/**
 * A cursor over the cells of one decoded data block (the read side of the encoding switch), created by
 * {@link Encodings#seeker} over the block's bytes. The bytes are read with absolute gets only, so the
 * same seeker works over a heap block and over a direct (off-heap cache) block, and never changes the
 * shared buffer's position or limit.
 *
 * <p>What a cell is depends on the encoding: NONE and ROW_INDEX_V1 return views into the block
 * ({@code KeyValue} over a heap array, {@code ByteBufferKeyValue} over a direct buffer; valid while the
 * block's memory is); DIFF rebuilds each key from the previous one and returns a new heap
 * {@code KeyValue} per cell.
 *
 * <p>A new seeker is positioned on the block's first cell. Not thread safe: one reader at a time.
 */
public interface BlockSeeker {
    /**
     * Positions on the first cell whose row is >= {@code row} (an empty row: the first cell).
     *
     * @return false when every cell of the block sorts before {@code row} (the seeker is then exhausted)
     */
    boolean seekToRow(byte[] row);

    /** Positions on the block's first cell. */
    void rewind();

    /** The current cell, or null when the seeker is exhausted. */
    Cell current();

    /** Compares the current cell's row with {@code row} without making a cell (not valid when exhausted). */
    int compareCurrentRow(byte[] row);

    /** Moves to the next cell; false when there is none (the seeker is then exhausted). */
    boolean next();
}
