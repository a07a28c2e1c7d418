package org.heaplab.core.cell;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;

/**
 * HBase's cell order: row, family, qualifier ascending (unsigned bytes); timestamp descending;
 * type code descending (so deletes sort before puts of the same timestamp).
 *
 * <p>Two heap {@link KeyValue}s compare over their arrays (the hot path of the on-heap memstore and the
 * store files); any pair involving a {@link ByteBufferKeyValue} compares byte by byte with absolute reads
 * (no garbage), so a cell over a direct buffer sorts exactly like the equal KeyValue.
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
        return compareTimestampAndType(a, b);
    }

    /** Newer timestamps first; at equal timestamps the higher type code (deletes before puts). */
    private static int compareTimestampAndType(Cell a, Cell b) {
        int c = Long.compare(b.timestamp(), a.timestamp());
        if (c != 0) {
            return c;
        }
        return Integer.compare(b.typeByte() & 0xff, a.typeByte() & 0xff);
    }

    /**
     * Unsigned order of two ranges given relative to each cell's first serialized byte. Byte by byte with
     * absolute reads: slicing the buffers would make a few objects per comparison, and an off-heap
     * memstore compares about twenty times per insert.
     */
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

    /** Byte {@code i} of the cell's serialized form. */
    private static byte byteAt(Cell c, int i) {
        if (c instanceof KeyValue kv) {
            return kv.getBuffer()[kv.getOffset() + i];
        }
        if (c instanceof ByteBufferKeyValue bb) {
            return bb.buffer().get(bb.offset() + i);
        }
        return c.serializedView().get(i); // any other Cell: correct, not garbage-free
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
        return compareTimestampAndType(a, b);
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

    /** Row order of any two cells (unsigned bytes), garbage-free whatever memory they live in. */
    public static int compareRows(Cell a, Cell b) {
        if (a instanceof KeyValue ka && b instanceof KeyValue kb) {
            return compareRows(ka, kb);
        }
        return compareBytes(a, ROW, a.rowLength(), b, ROW, b.rowLength());
    }

    /** Compares any cell's row with {@code row} (unsigned bytes). */
    public static int compareRow(Cell cell, byte[] row) {
        if (cell instanceof KeyValue kv) {
            return compareRow(kv, row);
        }
        return compareWithArray(cell, ROW, cell.rowLength(), row);
    }

    /** True when both cells have the same family. */
    public static boolean sameFamily(Cell a, Cell b) {
        return compareBytes(a, ROW + a.rowLength() + 1, a.familyLength(), b, ROW + b.rowLength() + 1,
            b.familyLength()) == 0;
    }

    /** True when both cells have the same family and qualifier (rows are not compared). */
    public static boolean sameColumn(Cell a, Cell b) {
        if (!sameFamily(a, b)) {
            return false;
        }
        return compareBytes(a, ROW + a.rowLength() + 1 + a.familyLength(), a.qualifierLength(),
            b, ROW + b.rowLength() + 1 + b.familyLength(), b.qualifierLength()) == 0;
    }

    /** True when {@code cell}'s qualifier equals {@code qualifier}. */
    public static boolean qualifierEquals(Cell cell, byte[] qualifier) {
        return cell.qualifierLength() == qualifier.length
            && compareWithArray(cell, ROW + cell.rowLength() + 1 + cell.familyLength(), qualifier.length, qualifier) == 0;
    }

    private static int compareWithArray(Cell c, int off, int len, byte[] b) {
        int n = Math.min(len, b.length);
        for (int i = 0; i < n; i++) {
            int x = byteAt(c, off + i) & 0xff;
            int y = b[i] & 0xff;
            if (x != y) {
                return x - y;
            }
        }
        return Integer.compare(len, b.length);
    }

    /**
     * {@link Arrays#hashCode(byte[])} of the cell's row, computed in place (no row copy): the put path
     * hashes every row for its lock stripe.
     */
    public static int rowHashCode(Cell cell) {
        int h = 1;
        int n = cell.rowLength();
        if (cell instanceof KeyValue kv) {
            byte[] b = kv.getBuffer();
            int from = kv.rowOffset();
            for (int i = 0; i < n; i++) {
                h = 31 * h + b[from + i];
            }
            return h;
        }
        for (int i = 0; i < n; i++) {
            h = 31 * h + byteAt(cell, ROW + i);
        }
        return h;
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
