package org.heaplab.core.cell;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;

/**
 * HBase's cell order: row, family, qualifier ascending (unsigned bytes); timestamp descending;
 * type code descending (so deletes sort before puts of the same timestamp).
 *
 * <p>Two heap {@link KeyValue}s compare over their arrays (the hot path of the memstore and the store
 * files); any other pair of {@link Cell}s compares over {@link Cell#serializedView()} buffers with
 * unsigned byte order, so a {@link ByteBufferKeyValue} over a direct buffer sorts exactly like the
 * equal KeyValue.
 */
public final class CellComparator implements Comparator<Cell> {
    public static final CellComparator INSTANCE = new CellComparator();
    /** Index of the row bytes in a serialized cell: ROW_OFFSET + the 2-byte row length. */
    private static final int ROW = KeyValue.ROW_OFFSET + 2;

    private CellComparator() {
    }

    @Override
    public int compare(Cell a, Cell b) {
        if (a instanceof KeyValue ka && b instanceof KeyValue kb) {
            return compareKeyValues(ka, kb);
        }
        ByteBuffer ab = a.serializedView();
        ByteBuffer bb = b.serializedView();
        int aRow = a.rowLength();
        int bRow = b.rowLength();
        int c = compareUnsigned(ab, ROW, aRow, bb, ROW, bRow);
        if (c != 0) {
            return c;
        }
        int aFam = ROW + aRow + 1;
        int bFam = ROW + bRow + 1;
        c = compareUnsigned(ab, aFam, a.familyLength(), bb, bFam, b.familyLength());
        if (c != 0) {
            return c;
        }
        c = compareUnsigned(ab, aFam + a.familyLength(), a.qualifierLength(), bb, bFam + b.familyLength(), b.qualifierLength());
        if (c != 0) {
            return c;
        }
        c = Long.compare(b.timestamp(), a.timestamp());
        if (c != 0) {
            return c;
        }
        return Integer.compare(b.typeByte() & 0xff, a.typeByte() & 0xff);
    }

    /** Unsigned lexicographic order of two ranges (absolute indexes) of two buffers. */
    public static int compareUnsigned(ByteBuffer a, int aOff, int aLen, ByteBuffer b, int bOff, int bLen) {
        ByteBuffer as = a.slice(aOff, aLen);
        ByteBuffer bs = b.slice(bOff, bLen);
        int i = as.mismatch(bs);
        if (i < 0) {
            return 0;
        }
        if (i >= aLen || i >= bLen) {
            return Integer.compare(aLen, bLen);
        }
        return Integer.compare(as.get(i) & 0xff, bs.get(i) & 0xff);
    }

    private static int compareKeyValues(KeyValue a, KeyValue b) {
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

    /** True when {@code cell}'s family equals {@code family}. */
    public static boolean familyEquals(Cell cell, byte[] family) {
        if (cell instanceof KeyValue kv) {
            return Arrays.equals(kv.getBuffer(), kv.familyOffset(), kv.familyOffset() + kv.familyLength(), family, 0,
                family.length);
        }
        if (cell.familyLength() != family.length) {
            return false;
        }
        if (cell instanceof ByteBufferKeyValue bb) {
            int f = bb.offset() + ROW + bb.rowLength() + 1;
            ByteBuffer buf = bb.buffer();
            for (int i = 0; i < family.length; i++) { // absolute gets: no slice garbage on the put path
                if (buf.get(f + i) != family[i]) {
                    return false;
                }
            }
            return true;
        }
        return Arrays.equals(cell.family(), family);
    }
}
