package org.heaplab.core.memstore;

import java.util.Comparator;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;

/**
 * {@link CellComparator}'s order without garbage for cells in off-heap chunks: two heap KeyValues go to
 * CellComparator's array path; any pair involving a {@link ByteBufferKeyValue} is compared byte by
 * byte with absolute reads, where CellComparator's general path would slice buffers (a few objects per
 * comparison, about twenty comparisons per skip-list insert).
 *
 * <p>Stateless; safe from any thread.
 */
final class MemstoreComparator implements Comparator<Cell> {
    static final MemstoreComparator INSTANCE = new MemstoreComparator();
    /** Index of the row bytes in a serialized cell: ROW_OFFSET + the 2-byte row length. */
    private static final int ROW = KeyValue.ROW_OFFSET + 2;

    private MemstoreComparator() {
    }

    @Override
    public int compare(Cell a, Cell b) {
        if (a instanceof KeyValue && b instanceof KeyValue) {
            return CellComparator.INSTANCE.compare(a, b);
        }
        int aRow = a.rowLength();
        int bRow = b.rowLength();
        int c = compareBytes(a, ROW, aRow, b, ROW, bRow);
        if (c != 0) {
            return c;
        }
        int aFam = ROW + aRow + 1;
        int bFam = ROW + bRow + 1;
        int aFamLen = a.familyLength();
        int bFamLen = b.familyLength();
        c = compareBytes(a, aFam, aFamLen, b, bFam, bFamLen);
        if (c != 0) {
            return c;
        }
        c = compareBytes(a, aFam + aFamLen, a.qualifierLength(), b, bFam + bFamLen, b.qualifierLength());
        if (c != 0) {
            return c;
        }
        c = Long.compare(b.timestamp(), a.timestamp());
        if (c != 0) {
            return c;
        }
        return Integer.compare(b.typeByte() & 0xff, a.typeByte() & 0xff);
    }

    /** Unsigned order of two ranges given relative to each cell's first byte. */
    private static int compareBytes(Cell a, int aOff, int aLen, Cell b, int bOff, int bLen) {
        int n = Math.min(aLen, bLen);
        for (int i = 0; i < n; i++) {
            int x = byteAt(a, aOff + i) & 0xff;
            int y = byteAt(b, bOff + i) & 0xff;
            if (x != y) {
                return x - y;
            }
        }
        return Integer.compare(aLen, bLen);
    }

    private static byte byteAt(Cell c, int i) {
        if (c instanceof KeyValue kv) {
            return kv.getBuffer()[kv.getOffset() + i];
        }
        ByteBufferKeyValue bb = (ByteBufferKeyValue) c;
        return bb.buffer().get(bb.offset() + i);
    }
}
