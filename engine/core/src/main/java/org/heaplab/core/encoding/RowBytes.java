package org.heaplab.core.encoding;

import java.nio.ByteBuffer;
import java.util.Arrays;

/** Unsigned comparison of bytes in a (heap or direct) ByteBuffer with a row, by absolute reads only. */
public final class RowBytes {
    private RowBytes() {
    }

    /** Compares {@code length} bytes of {@code buf} from {@code offset} with all of {@code row} (unsigned). */
    public static int compare(ByteBuffer buf, int offset, int length, byte[] row) {
        if (buf.hasArray()) {
            int from = buf.arrayOffset() + offset;
            return Arrays.compareUnsigned(buf.array(), from, from + length, row, 0, row.length);
        }
        int n = Math.min(length, row.length);
        for (int i = 0; i < n; i++) {
            int x = buf.get(offset + i) & 0xff;
            int y = row[i] & 0xff;
            if (x != y) {
                return x - y;
            }
        }
        return Integer.compare(length, row.length);
    }
}
