package org.heaplab.core.cell;

import java.nio.ByteBuffer;
import java.util.Arrays;

/** Small helpers that build KeyValues; every result owns a fresh byte[] of exactly its length. */
public final class Cells {
    private static final byte[] EMPTY = new byte[0];

    private Cells() {
    }

    /** A key that sorts before every cell of {@code row} (empty family and qualifier, newest time, MAXIMUM type). */
    public static KeyValue firstOnRow(byte[] row) {
        return KeyValue.create(row, EMPTY, EMPTY, KeyValue.LATEST_TIMESTAMP, KeyValue.Type.MAXIMUM, EMPTY);
    }

    /** A copy of {@code kv} in its own array (the 1.x shape: one byte[] per cell). */
    public static KeyValue copy(KeyValue kv) {
        return new KeyValue(kv.toByteArray(), 0, kv.getLength());
    }

    /** {@code kv} itself when it already owns exactly its array, else a copy. */
    public static KeyValue ownArray(KeyValue kv) {
        return kv.getOffset() == 0 && kv.getLength() == kv.getBuffer().length ? kv : copy(kv);
    }

    /** A copy of {@code kv} with another timestamp. */
    public static KeyValue withTimestamp(KeyValue kv, long timestamp) {
        byte[] b = kv.toByteArray();
        ByteBuffer.wrap(b).putLong(kv.timestampOffset() - kv.getOffset(), timestamp);
        return new KeyValue(b, 0, b.length);
    }

    /** True when both cells have the same family and qualifier. */
    public static boolean sameColumn(KeyValue a, KeyValue b) {
        return sameFamily(a, b) && Arrays.equals(
            a.getBuffer(), a.qualifierOffset(), a.qualifierOffset() + a.qualifierLength(),
            b.getBuffer(), b.qualifierOffset(), b.qualifierOffset() + b.qualifierLength());
    }

    /** True when both cells have the same family. */
    public static boolean sameFamily(KeyValue a, KeyValue b) {
        return Arrays.equals(a.getBuffer(), a.familyOffset(), a.familyOffset() + a.familyLength(),
            b.getBuffer(), b.familyOffset(), b.familyOffset() + b.familyLength());
    }

    /** True when {@code kv}'s row equals {@code row}. */
    public static boolean hasRow(KeyValue kv, byte[] row) {
        return CellComparator.compareRow(kv, row) == 0;
    }
}
