package org.heaplab.core.encoding;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.Cell;

/**
 * Reads a ROW_INDEX_V1 block (see {@link RowIndexV1Encoder}): a seek binary-searches the row offsets
 * (about log2(rows) row comparisons), then steps linearly within the row. Cells are views.
 */
public final class RowIndexV1Seeker implements BlockSeeker {
    private final ByteBuffer block;
    /** End of the cells section. */
    private final int dataSize;
    private final int rowCount;
    /** Index of rowOffset[0]. */
    private final int offsetsStart;
    private int pos;

    RowIndexV1Seeker(ByteBuffer block) {
        this.block = block;
        this.dataSize = block.getInt(block.limit() - 4);
        this.rowCount = block.getInt(dataSize);
        this.offsetsStart = dataSize + 4;
    }

    private int rowOffset(int i) {
        return block.getInt(offsetsStart + 4 * i);
    }

    @Override
    public boolean seekToRow(byte[] row) {
        // BEGIN SOLUTION row-index
        // the first row >= row: every cell before it sorts before row, and it is the row's first cell
        int lo = 0;
        int hi = rowCount;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (FlatCells.compareRow(block, rowOffset(mid), row) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        pos = lo < rowCount ? rowOffset(lo) : dataSize;
        return pos < dataSize;
        // END SOLUTION row-index
        // STUB row-index: throw new UnsupportedOperationException("not implemented: labs/06-row-index/README.md, Build it yourself (row-index)");
    }

    @Override
    public void rewind() {
        pos = 0;
    }

    @Override
    public Cell current() {
        return pos < dataSize ? FlatCells.view(block, pos, FlatCells.length(block, pos)) : null;
    }

    @Override
    public int compareCurrentRow(byte[] row) {
        return FlatCells.compareRow(block, pos, row);
    }

    @Override
    public boolean next() {
        if (pos < dataSize) {
            pos += FlatCells.length(block, pos);
        }
        return pos < dataSize;
    }
}
