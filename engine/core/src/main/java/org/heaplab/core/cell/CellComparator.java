package org.heaplab.core.cell;

import java.util.Arrays;
import java.util.Comparator;

/**
 * HBase's cell order: row, family, qualifier ascending (unsigned bytes); timestamp descending;
 * type code descending (so deletes sort before puts of the same timestamp).
 */
public final class CellComparator implements Comparator<KeyValue> {
    public static final CellComparator INSTANCE = new CellComparator();

    private CellComparator() {
    }

    @Override
    public int compare(KeyValue a, KeyValue b) {
        int c = compareRows(a, b);
        if (c != 0) {
            return c;
        }
        byte[] ab = a.getBuffer();
        byte[] bb = b.getBuffer();
        c = Arrays.compareUnsigned(ab, a.familyOffset(), a.familyOffset() + a.familyLength(),
            bb, b.familyOffset(), b.familyOffset() + b.familyLength());
        if (c != 0) {
            return c;
        }
        c = Arrays.compareUnsigned(ab, a.qualifierOffset(), a.qualifierOffset() + a.qualifierLength(),
            bb, b.qualifierOffset(), b.qualifierOffset() + b.qualifierLength());
        if (c != 0) {
            return c;
        }
        c = Long.compare(b.timestamp(), a.timestamp());
        if (c != 0) {
            return c;
        }
        return Integer.compare(b.typeByte() & 0xff, a.typeByte() & 0xff);
    }

    public static int compareRows(KeyValue a, KeyValue b) {
        return Arrays.compareUnsigned(a.getBuffer(), a.rowOffset(), a.rowOffset() + a.rowLength(),
            b.getBuffer(), b.rowOffset(), b.rowOffset() + b.rowLength());
    }

    /** Compares the cell's row with {@code row} (unsigned bytes). */
    public static int compareRow(KeyValue cell, byte[] row) {
        return Arrays.compareUnsigned(cell.getBuffer(), cell.rowOffset(), cell.rowOffset() + cell.rowLength(),
            row, 0, row.length);
    }
}
