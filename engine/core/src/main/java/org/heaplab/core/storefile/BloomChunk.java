package org.heaplab.core.storefile;

import java.nio.ByteBuffer;

/**
 * The bit math of one row bloom filter chunk: a bit array of ~9.6 bits per row at a 1% false-positive
 * rate, with k = 7 probes per row. Probes are derived from one 64-bit hash of the row (FNV-1a, then the
 * MurmurHash3 finalizer to spread the bits) by double hashing: probe i = (h1 + i * h2) mod bits.
 */
final class BloomChunk {
    private static final double LN2 = Math.log(2);

    private BloomChunk() {
    }

    static double bitsPerKey(double errorRate) {
        return -Math.log(errorRate) / (LN2 * LN2);
    }

    /** Probes per row for the best false-positive rate at {@code errorRate}'s bits per row. */
    static int hashCount(double errorRate) {
        return Math.max(1, (int) Math.round(bitsPerKey(errorRate) * LN2));
    }

    /** Rows one chunk of {@code chunkBytes} bytes holds at {@code errorRate} (HBase's io.storefile.bloom.block.size). */
    static int maxRows(int chunkBytes, double errorRate) {
        return Math.max(1, (int) (chunkBytes * 8L / bitsPerKey(errorRate)));
    }

    static long hash(byte[] row) {
        return hash(row, 0, row.length);
    }

    /** {@link #hash(byte[])} of {@code length} bytes of {@code buf} from {@code offset} (a row in place). */
    static long hash(byte[] buf, int offset, int length) {
        long h = 0xcbf29ce484222325L;
        for (int i = offset; i < offset + length; i++) {
            h ^= buf[i] & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** A chunk for {@code rows} row hashes: ceil(rows x bits per row / 8) bytes with their probes set. */
    static byte[] build(long[] hashes, int rows, double errorRate, int hashCount) {
        int bytes = Math.max(1, (int) Math.ceil(rows * bitsPerKey(errorRate) / 8));
        byte[] bits = new byte[bytes];
        long nbits = bytes * 8L;
        for (int r = 0; r < rows; r++) {
            long h = hashes[r];
            long h1 = h & 0xffffffffL;
            long h2 = h >>> 32;
            for (int i = 0; i < hashCount; i++) {
                long bit = (h1 + i * h2) % nbits;
                bits[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
            }
        }
        return bits;
    }

    /** False only when the row with {@code hash} was certainly not added to this chunk. */
    static boolean mightContain(ByteBuffer bits, long hash, int hashCount) {
        long nbits = bits.limit() * 8L;
        long h1 = hash & 0xffffffffL;
        long h2 = hash >>> 32;
        for (int i = 0; i < hashCount; i++) {
            long bit = (h1 + i * h2) % nbits;
            if ((bits.get((int) (bit >>> 3)) & (1 << (bit & 7))) == 0) {
                return false;
            }
        }
        return true;
    }
}
