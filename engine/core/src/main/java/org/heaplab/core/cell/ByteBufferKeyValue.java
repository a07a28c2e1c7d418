package org.heaplab.core.cell;

import java.nio.ByteBuffer;

/**
 * A KeyValue-format cell over a slice of a ByteBuffer (heap or direct), read with absolute gets, so
 * the buffer's position and limit are never touched. The 2.x zero-copy RPC path decodes request cells
 * as these views over the pooled direct request buffer.
 *
 * <p>Ownership: the view does not own the buffer. Whoever owns the buffer (the RPC server, for a
 * request) returns it to its pool after the call; from then on the view reads whatever the next
 * request wrote there. Anything that outlives the call (the memstore) must copy the cell first.
 *
 * <p>Pitfalls: {@link #withTimestamp} writes into the buffer (the owner's call is the only user of
 * it); never keep a ByteBufferKeyValue in a collection that outlives the call. An {@link #ownedCopyOf}
 * cell gives its array away in {@link #toOwnKeyValue}: do not stamp it after that.
 *
 * <p>Thread safety: reads are safe from any thread while the buffer is not reused; absolute gets only.
 */
public final class ByteBufferKeyValue implements Cell {
    private final ByteBuffer buf;
    private final int offset;
    private final int length;
    /** True when {@code buf} wraps a heap array made for this cell alone (see {@link #ownedCopyOf}). */
    private final boolean ownsArray;

    /** Wraps {@code length} bytes of {@code buf} from absolute index {@code offset}; does not copy. */
    public ByteBufferKeyValue(ByteBuffer buf, int offset, int length) {
        this(buf, offset, length, false);
    }

    /**
     * A copy of {@code length} bytes of {@code src} from {@code offset} in a fresh heap array that belongs
     * to the returned cell alone (the 1.x decoder's copy): stamping writes into that array, and
     * {@link #toOwnKeyValue} hands the array over instead of copying it again.
     */
    public static ByteBufferKeyValue ownedCopyOf(ByteBuffer src, int offset, int length) {
        byte[] b = new byte[length];
        src.get(offset, b, 0, length);
        return new ByteBufferKeyValue(ByteBuffer.wrap(b), 0, length, true);
    }

    private ByteBufferKeyValue(ByteBuffer buf, int offset, int length, boolean ownsArray) {
        this.ownsArray = ownsArray;
        if (offset < 0 || length < KeyValue.ROW_OFFSET + KeyValue.KEY_INFRASTRUCTURE_SIZE || offset + length > buf.limit()) {
            throw new IllegalArgumentException("not a KeyValue: offset " + offset + " length " + length);
        }
        this.buf = buf;
        this.offset = offset;
        this.length = length;
        long expected = KeyValue.ROW_OFFSET + (long) keyLength() + valueLength();
        if (expected != length) {
            throw new IllegalArgumentException("KeyValue length " + length + " does not match its header " + expected);
        }
    }

    public ByteBuffer buffer() {
        return buf;
    }

    public int offset() {
        return offset;
    }

    @Override
    public int getSerializedLength() {
        return length;
    }

    @Override
    public int keyLength() {
        return buf.getInt(offset);
    }

    @Override
    public int valueLength() {
        return buf.getInt(offset + 4);
    }

    private int rowOffset() {
        return offset + KeyValue.ROW_OFFSET + 2;
    }

    @Override
    public int rowLength() {
        return buf.getShort(offset + KeyValue.ROW_OFFSET) & 0xffff;
    }

    private int familyOffset() {
        return rowOffset() + rowLength() + 1;
    }

    @Override
    public int familyLength() {
        return buf.get(rowOffset() + rowLength());
    }

    @Override
    public int qualifierLength() {
        return keyLength() - rowLength() - familyLength() - KeyValue.KEY_INFRASTRUCTURE_SIZE;
    }

    private int timestampOffset() {
        return offset + KeyValue.ROW_OFFSET + keyLength() - 9;
    }

    @Override
    public long timestamp() {
        return buf.getLong(timestampOffset());
    }

    @Override
    public byte typeByte() {
        return buf.get(offset + KeyValue.ROW_OFFSET + keyLength() - 1);
    }

    private byte[] copy(int from, int n) {
        byte[] b = new byte[n];
        buf.get(from, b, 0, n);
        return b;
    }

    @Override
    public byte[] row() {
        return copy(rowOffset(), rowLength());
    }

    @Override
    public byte[] family() {
        return copy(familyOffset(), familyLength());
    }

    @Override
    public byte[] qualifier() {
        return copy(familyOffset() + familyLength(), qualifierLength());
    }

    @Override
    public byte[] value() {
        return copy(offset + KeyValue.ROW_OFFSET + keyLength(), valueLength());
    }

    @Override
    public ByteBuffer serializedView() {
        return buf.slice(offset, length);
    }

    @Override
    public void copyTo(byte[] dst, int dstOffset) {
        buf.get(offset, dst, dstOffset, length);
    }

    @Override
    public Cell withTimestamp(long ts) {
        buf.putLong(timestampOffset(), ts);
        return this;
    }

    @Override
    public KeyValue toOwnKeyValue() {
        if (ownsArray) {
            return new KeyValue(buf.array(), 0, length);
        }
        byte[] b = new byte[length];
        copyTo(b, 0);
        return new KeyValue(b, 0, length);
    }

    @Override
    public String toString() {
        return toOwnKeyValue().toString();
    }
}
