package org.heaplab.tools;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * What PE writes: row keys of 26 zero-padded decimal digits, family info0, qualifier 0, values made
 * of runs of eight identical upper-case letters (compressible like HBase PE's), and the split keys
 * of a table pre-split into N regions over the total rows.
 */
public final class PeData {
    public static final int ROW_LENGTH = 26;
    public static final byte[] FAMILY = "info0".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] QUALIFIER = "0".getBytes(StandardCharsets.US_ASCII);

    private PeData() {
    }

    /** {@code n} as 26 ASCII digits, zero-padded on the left. */
    public static byte[] rowKey(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("row number must be >= 0, got " + n);
        }
        byte[] b = new byte[ROW_LENGTH];
        for (int i = ROW_LENGTH - 1; i >= 0; i--) {
            b[i] = (byte) ('0' + (n % 10));
            n /= 10;
        }
        return b;
    }

    /** A value of {@code length} bytes: runs of 8 copies of a random letter A..Z, the tail one letter. */
    public static byte[] value(Random random, int length) {
        byte[] b = new byte[length];
        int i = 0;
        for (; i + 8 < length; i += 8) {
            byte letter = (byte) ('A' + random.nextInt(26));
            for (int j = 0; j < 8; j++) {
                b[i + j] = letter;
            }
        }
        byte letter = (byte) ('A' + random.nextInt(26));
        for (; i < length; i++) {
            b[i] = letter;
        }
        return b;
    }

    /** A random row in [0, totalRows), drawn as HBase PE draws it. */
    public static int randomRow(Random random, int totalRows) {
        return random.nextInt(Integer.MAX_VALUE) % totalRows;
    }

    /** The N-1 split keys of N regions: row keys at totalRows/N, 2*totalRows/N, ... */
    public static byte[][] splits(int regions, int totalRows) {
        if (regions <= 1) {
            return new byte[0][];
        }
        byte[][] splits = new byte[regions - 1][];
        long jump = totalRows / regions;
        for (int i = 0; i < regions - 1; i++) {
            splits[i] = rowKey(jump * (i + 1));
        }
        return splits;
    }
}
