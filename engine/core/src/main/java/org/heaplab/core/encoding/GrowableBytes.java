package org.heaplab.core.encoding;

import java.util.Arrays;

/** A reusable, growing byte array the encoders build a block in (big-endian ints, 7-bit varints). */
final class GrowableBytes {
    private byte[] bytes = new byte[64 * 1024 + 1024];
    private int length;

    int length() {
        return length;
    }

    void reset() {
        length = 0;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }

    void write(byte[] src, int offset, int n) {
        ensure(n);
        System.arraycopy(src, offset, bytes, length, n);
        length += n;
    }

    void writeByte(int b) {
        ensure(1);
        bytes[length++] = (byte) b;
    }

    void writeInt(int v) {
        ensure(4);
        bytes[length++] = (byte) (v >>> 24);
        bytes[length++] = (byte) (v >>> 16);
        bytes[length++] = (byte) (v >>> 8);
        bytes[length++] = (byte) v;
    }

    /** The {@code n} low-order bytes of {@code v}, most significant first. */
    void writeLongBytes(long v, int n) {
        ensure(n);
        for (int i = n - 1; i >= 0; i--) {
            bytes[length++] = (byte) (v >>> (8 * i));
        }
    }

    /** A non-negative int in 7-bit groups, low group first; the high bit says "more follows". */
    void writeVInt(int v) {
        if (v < 0) {
            throw new IllegalArgumentException("negative varint " + v);
        }
        while (v >= 0x80) {
            writeByte((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        writeByte(v);
    }

    /** The first {@link #length} bytes in a new array. */
    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }
}
