package org.heaplab.core.cell;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A cell in HBase's KeyValue format, backed by a slice of a heap byte[].
 *
 * <pre>
 * KeyValue, big-endian (the format every layer shares: WAL records, store-file blocks, RPC cell blocks)
 *   int   keyLength                         ┐ ROW_OFFSET = 8
 *   int   valueLength                       ┘
 *   key:
 *     short rowLength, row bytes
 *     byte  familyLength, family bytes
 *     qualifier bytes                       (no length: keyLength - rowLength - familyLength - 12)
 *     long  timestamp
 *     byte  type                            (Type.code)
 *   value bytes
 * </pre>
 *
 * <p>Instances are immutable views: the backing array must not change after construction.
 * This is the 1.x representation (one heap object plus one byte[] per cell); the off-heap
 * representations that later issues add implement the same sort order over other memory.
 */
public final class KeyValue implements Cell {
    public static final int ROW_OFFSET = 8;
    /** row length (2) + family length (1) + timestamp (8) + type (1). */
    public static final int KEY_INFRASTRUCTURE_SIZE = 12;
    public static final long LATEST_TIMESTAMP = Long.MAX_VALUE;

    /** Cell types and their codes, as HBase's KeyValue.Type. Deletes sort before puts. */
    public enum Type {
        MINIMUM(0), PUT(4), DELETE(8), DELETE_FAMILY_VERSION(10), DELETE_COLUMN(12), DELETE_FAMILY(14), MAXIMUM(255);

        public final byte code;

        /** values() once: it clones the array per call, and every cell written has its type checked. */
        private static final Type[] VALUES = values();

        Type(int code) {
            this.code = (byte) code;
        }

        public static Type of(byte code) {
            for (Type t : VALUES) {
                if (t.code == code) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown KeyValue type code " + (code & 0xff));
        }
    }

    private final byte[] bytes;
    private final int offset;
    private final int length;

    /** Wraps {@code length} bytes of {@code bytes} from {@code offset}; does not copy. */
    public KeyValue(byte[] bytes, int offset, int length) {
        if (offset < 0 || length < ROW_OFFSET + KEY_INFRASTRUCTURE_SIZE || offset + length > bytes.length) {
            throw new IllegalArgumentException("not a KeyValue: offset " + offset + " length " + length);
        }
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
        int expected = ROW_OFFSET + keyLength() + valueLength();
        if (expected != length) {
            throw new IllegalArgumentException("KeyValue length " + length + " does not match its header " + expected);
        }
    }

    /** Builds a new KeyValue in a fresh byte[] (a copy of every argument). */
    public static KeyValue create(byte[] row, byte[] family, byte[] qualifier, long timestamp, Type type, byte[] value) {
        if (row.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("row longer than " + Short.MAX_VALUE);
        }
        if (family.length > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("family longer than " + Byte.MAX_VALUE);
        }
        int keyLength = KEY_INFRASTRUCTURE_SIZE + row.length + family.length + qualifier.length;
        byte[] buf = new byte[ROW_OFFSET + keyLength + value.length];
        ByteBuffer b = ByteBuffer.wrap(buf);
        b.putInt(keyLength).putInt(value.length);
        b.putShort((short) row.length).put(row);
        b.put((byte) family.length).put(family);
        b.put(qualifier);
        b.putLong(timestamp).put(type.code);
        b.put(value);
        return new KeyValue(buf, 0, buf.length);
    }

    /** Serialized length of a KeyValue read from {@code bytes} at {@code offset} (header only). */
    public static int serializedLength(byte[] bytes, int offset) {
        return ROW_OFFSET + readInt(bytes, offset) + readInt(bytes, offset + 4);
    }

    public byte[] getBuffer() {
        return bytes;
    }

    public int getOffset() {
        return offset;
    }

    public int getLength() {
        return length;
    }

    @Override
    public int getSerializedLength() {
        return length;
    }

    @Override
    public ByteBuffer serializedView() {
        return ByteBuffer.wrap(bytes, offset, length).slice();
    }

    @Override
    public void copyTo(byte[] dst, int dstOffset) {
        System.arraycopy(bytes, offset, dst, dstOffset, length);
    }

    /** A copy in a fresh array with {@code ts} as the timestamp (KeyValues are immutable). */
    @Override
    public KeyValue withTimestamp(long ts) {
        return Cells.withTimestamp(this, ts);
    }

    @Override
    public KeyValue toOwnKeyValue() {
        return Cells.ownArray(this);
    }

    @Override
    public int keyLength() {
        return readInt(bytes, offset);
    }

    @Override
    public int valueLength() {
        return readInt(bytes, offset + 4);
    }

    public int keyOffset() {
        return offset + ROW_OFFSET;
    }

    @Override
    public int rowLength() {
        return readShort(bytes, keyOffset());
    }

    public int rowOffset() {
        return keyOffset() + 2;
    }

    @Override
    public int familyLength() {
        return bytes[rowOffset() + rowLength()];
    }

    public int familyOffset() {
        return rowOffset() + rowLength() + 1;
    }

    public int qualifierOffset() {
        return familyOffset() + familyLength();
    }

    @Override
    public int qualifierLength() {
        return keyLength() - rowLength() - familyLength() - KEY_INFRASTRUCTURE_SIZE;
    }

    public int timestampOffset() {
        return keyOffset() + keyLength() - 9;
    }

    @Override
    public long timestamp() {
        return readLong(bytes, timestampOffset());
    }

    @Override
    public Type type() {
        return Type.of(typeByte());
    }

    @Override
    public byte typeByte() {
        return bytes[keyOffset() + keyLength() - 1];
    }

    public int valueOffset() {
        return keyOffset() + keyLength();
    }

    @Override
    public byte[] row() {
        return Arrays.copyOfRange(bytes, rowOffset(), rowOffset() + rowLength());
    }

    @Override
    public byte[] family() {
        return Arrays.copyOfRange(bytes, familyOffset(), familyOffset() + familyLength());
    }

    @Override
    public byte[] qualifier() {
        return Arrays.copyOfRange(bytes, qualifierOffset(), qualifierOffset() + qualifierLength());
    }

    @Override
    public byte[] value() {
        return Arrays.copyOfRange(bytes, valueOffset(), valueOffset() + valueLength());
    }

    /** The serialized cell in a new array of exactly {@link #getLength()} bytes. */
    public byte[] toByteArray() {
        return Arrays.copyOfRange(bytes, offset, offset + length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyValue kv
            && Arrays.equals(bytes, offset, offset + length, kv.bytes, kv.offset, kv.offset + kv.length);
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = offset; i < offset + length; i++) {
            h = 31 * h + bytes[i];
        }
        return h;
    }

    @Override
    public String toString() {
        return new String(row(), StandardCharsets.ISO_8859_1) + "/" + new String(family(), StandardCharsets.ISO_8859_1)
            + ":" + new String(qualifier(), StandardCharsets.ISO_8859_1) + "/" + timestamp() + "/" + type()
            + "/vlen=" + valueLength();
    }

    static int readInt(byte[] b, int o) {
        return ((b[o] & 0xff) << 24) | ((b[o + 1] & 0xff) << 16) | ((b[o + 2] & 0xff) << 8) | (b[o + 3] & 0xff);
    }

    static int readShort(byte[] b, int o) {
        return ((b[o] & 0xff) << 8) | (b[o + 1] & 0xff);
    }

    static long readLong(byte[] b, int o) {
        return ((long) readInt(b, o) << 32) | (readInt(b, o + 4) & 0xffffffffL);
    }
}
