package org.heaplab.core.cell;

import java.nio.ByteBuffer;

/**
 * A cell in KeyValue format (see {@link KeyValue} for the byte layout), wherever its bytes live:
 * {@link KeyValue} over a heap byte[] (the 1.x shape, and the memstore's MSLAB chunks), or
 * {@link ByteBufferKeyValue} over a (possibly direct) ByteBuffer, such as a pooled RPC request buffer
 * (the 2.x zero-copy shape).
 *
 * <p>Ownership: a Cell is a view. It is valid only as long as the memory under it is not reused; the
 * put path (WAL append, memstore insert) reads it and copies what it keeps, so a Cell passed to
 * {@code OnlineRegions.put} may be invalid as soon as put returns.
 */
public interface Cell {
    /** Serialized length: {@code ROW_OFFSET + keyLength + valueLength}. */
    int getSerializedLength();

    int keyLength();

    int valueLength();

    int rowLength();

    int familyLength();

    int qualifierLength();

    long timestamp();

    byte typeByte();

    default KeyValue.Type type() {
        return KeyValue.Type.of(typeByte());
    }

    /** Copies of the parts (new arrays). */
    byte[] row();

    byte[] family();

    byte[] qualifier();

    byte[] value();

    /**
     * The serialized cell as a ByteBuffer view (no copy): position 0 is the cell's first byte, limit
     * its length. Independent position and limit; the content is shared with the cell.
     */
    ByteBuffer serializedView();

    /** Copies the serialized cell into {@code dst} at {@code offset}. */
    void copyTo(byte[] dst, int offset);

    /**
     * This cell with {@code ts} as its timestamp: a {@link KeyValue} returns a copy in a fresh array (it
     * is immutable); a {@link ByteBufferKeyValue} writes the timestamp in place into the request buffer
     * its call owns and returns itself (as HBase stamps LATEST_TIMESTAMP cells in the request buffer).
     */
    Cell withTimestamp(long ts);

    /** A heap KeyValue owning exactly its array: {@code this} when it already is one, else a copy. */
    KeyValue toOwnKeyValue();
}
