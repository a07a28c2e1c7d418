package org.heaplab.core.encoding;

import java.util.Arrays;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.DataBlockEncoding;

/**
 * ROW_INDEX_V1 (HBASE-16213): the cells as in NONE, followed by the offset of every row's first cell,
 * so a seek binary-searches the rows instead of walking every cell.
 *
 * <pre>
 *   block     := KeyValue*               (cells, exactly as NONE; dataSize bytes)
 *                int rowCount
 *                int rowOffset[rowCount] (offset of each row's first cell from the block start)
 *                int dataSize            (the last 4 bytes: where the cells end)
 * </pre>
 *
 * Cost: 4 bytes per row plus 8 per block. A row continued from the previous block gets an entry too
 * (its first cell here).
 */
public final class RowIndexV1Encoder implements DataBlockEncoder {
    private final GrowableBytes cells = new GrowableBytes();
    private int[] rowOffsets = new int[1024];
    private int rows;
    private int cellCount;
    private KeyValue previous;

    @Override
    public DataBlockEncoding encoding() {
        return DataBlockEncoding.ROW_INDEX_V1;
    }

    @Override
    public void append(KeyValue cell) {
        // BEGIN SOLUTION row-index
        if (previous == null || CellComparator.compareRows(previous, cell) != 0) {
            if (rows == rowOffsets.length) {
                rowOffsets = Arrays.copyOf(rowOffsets, rows * 2);
            }
            rowOffsets[rows++] = cells.length();
        }
        cells.write(cell.getBuffer(), cell.getOffset(), cell.getLength());
        cellCount++;
        previous = cell;
        // END SOLUTION row-index
        // STUB row-index: throw new UnsupportedOperationException("not implemented: labs/06-row-index/README.md, Build it yourself (row-index)");
    }

    @Override
    public int encodedSize() {
        return cells.length() + 4 + 4 * rows + 4;
    }

    @Override
    public int cellCount() {
        return cellCount;
    }

    @Override
    public byte[] finishBlock() {
        writeRowIndex(cells.length());
        byte[] out = cells.toByteArray();
        cells.reset();
        rows = 0;
        cellCount = 0;
        previous = null;
        return out;
    }

    /** Appends the index after the cells ({@code dataSize} bytes): the row count, each row's offset, dataSize. */
    private void writeRowIndex(int dataSize) {
        // BEGIN SOLUTION row-index
        cells.writeInt(rows);
        for (int i = 0; i < rows; i++) {
            cells.writeInt(rowOffsets[i]);
        }
        cells.writeInt(dataSize);
        // END SOLUTION row-index
        // STUB row-index: throw new UnsupportedOperationException("not implemented: labs/06-row-index/README.md, Build it yourself (row-index)");
    }
}
