package org.heaplab.client;

import java.util.Arrays;
import java.util.Locale;

/** Row keys in messages and comparisons (unsigned byte order, as the server sorts). */
final class Keys {
    private Keys() {
    }

    /** Printable ASCII as is, other bytes as \xNN; the empty key as "(empty)". */
    static String printable(byte[] k) {
        if (k.length == 0) {
            return "(empty)";
        }
        StringBuilder sb = new StringBuilder();
        for (byte b : k) {
            if (b >= 0x20 && b < 0x7f) {
                sb.append((char) b);
            } else {
                sb.append(String.format(Locale.ROOT, "\\x%02X", b & 0xff));
            }
        }
        return sb.toString();
    }

    /** True when a region ending at {@code endKey} (empty = the end) lies wholly before {@code stopRow} (empty = the end). */
    static boolean regionEndsBefore(byte[] endKey, byte[] stopRow) {
        if (endKey.length == 0) {
            return false;
        }
        return stopRow.length == 0 || Arrays.compareUnsigned(endKey, stopRow) < 0;
    }
}
