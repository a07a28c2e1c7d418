package org.heaplab.core.encoding;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Unsigned comparison of bytes in a (heap or direct) ByteBuffer with a row, by absolute reads only (the
 * shared block's position and limit are never touched, and nothing is allocated).
 */
public final class RowBytes {
    /** Reads 8 bytes of a byte[] as one big-endian long (to compare 8 bytes at a time). */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private RowBytes() {
    }

    /** Compares {@code length} bytes of {@code buf} from {@code offset} with all of {@code row} (unsigned). */
    public static int compare(ByteBuffer buf, int offset, int length, byte[] row) {
        if (buf.hasArray()) {
            int from = buf.arrayOffset() + offset;
            return Arrays.compareUnsigned(buf.array(), from, from + length, row, 0, row.length);
        }
        int n = Math.min(length, row.length);
        int i = 0;
        if (buf.order() == ByteOrder.BIG_ENDIAN) {
            // rows often share long prefixes (PE's zero-padded keys): 8 bytes per step, as big-endian
            // longs compare like their bytes when compared unsigned
            for (; i + 8 <= n; i += 8) {
                long x = buf.getLong(offset + i);
                long y = (long) LONGS.get(row, i);
                if (x != y) {
                    return Long.compareUnsigned(x, y);
                }
            }
        }
        for (; i < n; i++) {
            int x = buf.get(offset + i) & 0xff;
            int y = row[i] & 0xff;
            if (x != y) {
                return x - y;
            }
        }
        return Integer.compare(length, row.length);
    }
}
