package org.heaplab.core.encoding;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * Absolute reads of whole KeyValues laid back to back in a block (the NONE and ROW_INDEX_V1 cell
 * sections): cell length, row comparison without making an object, and the cell view itself.
 */
final class FlatCells {
    private FlatCells() {
    }

    /** Serialized length of the KeyValue starting at {@code pos}. */
    static int length(ByteBuffer block, int pos) {
        return KeyValue.ROW_OFFSET + block.getInt(pos) + block.getInt(pos + 4);
    }

    /** Compares the row of the KeyValue at {@code pos} with {@code row} (unsigned bytes). */
    static int compareRow(ByteBuffer block, int pos, byte[] row) {
        int rowLength = block.getShort(pos + KeyValue.ROW_OFFSET) & 0xffff;
        return RowBytes.compare(block, pos + KeyValue.ROW_OFFSET + 2, rowLength, row);
    }

    /**
     * The KeyValue at {@code pos} as a view (no copy): a {@link KeyValue} over the heap array, a
     * {@link ByteBufferKeyValue} over a direct (or read-only) buffer.
     */
    static Cell view(ByteBuffer block, int pos, int length) {
        if (block.hasArray()) {
            return new KeyValue(block.array(), block.arrayOffset() + pos, length);
        }
        return new ByteBufferKeyValue(block, pos, length);
    }
}
