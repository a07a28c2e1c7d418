package org.heaplab.tools;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * YCSB's row keys and the split keys that spread them evenly over pre-split regions
 * ({@code admin create --splits=ycsb}, engine/docs/ycsb.md). No dependency beyond the JDK: Apache HBase's
 * LabAdmin (infra/apache-hbase) compiles this file too, so both servers split a YCSB table alike.
 */
public final class YcsbKeys {
    /** At most this many YCSB keys are sorted to place the splits (a hashed stride beyond: the keys are random). */
    private static final int SPLIT_SAMPLE = 10_000_000;

    private YcsbKeys() {
    }

    /**
     * YCSB's key of record {@code keynum} with its defaults (insertorder=hashed, zeropadding=1): "user" and
     * the 64-bit FNV-1a hash of the number, made non-negative, in decimal (site.ycsb.Utils.fnvhash64).
     */
    public static String key(long keynum) {
        return "user" + hash(keynum);
    }

    private static long hash(long keynum) {
        long h = 0xCBF29CE484222325L;
        for (int i = 0; i < 8; i++) {
            h = (h ^ (keynum & 0xff)) * 1099511628211L;
            keynum >>= 8;
        }
        return Math.abs(h);
    }

    /**
     * Split keys that give each of {@code regions} regions the same share of YCSB's first {@code totalRows}
     * keys. The keys sort as strings, so each hash is compared as its decimal digits padded on the right to
     * 19 digits (an unsigned long); the split key is "user" + those 19 digits of the key at each quantile.
     */
    public static byte[][] splits(int regions, int totalRows) {
        if (regions <= 1) {
            return new byte[0][];
        }
        int stride = Math.max(1, totalRows / SPLIT_SAMPLE);
        long[] sortable = new long[(totalRows + stride - 1) / stride];
        for (int i = 0; i < sortable.length; i++) {
            long h = hash((long) i * stride);
            long padded = h;
            for (int digits = Long.toString(h).length(); digits < 19; digits++) {
                padded *= 10;
            }
            sortable[i] = padded ^ Long.MIN_VALUE; // unsigned order as signed order
        }
        Arrays.sort(sortable);
        byte[][] splits = new byte[regions - 1][];
        for (int k = 1; k < regions; k++) {
            String digits = Long.toUnsignedString(sortable[(int) ((long) sortable.length * k / regions)] ^ Long.MIN_VALUE);
            splits[k - 1] = ("user" + digits).getBytes(StandardCharsets.UTF_8);
        }
        return splits;
    }
}
