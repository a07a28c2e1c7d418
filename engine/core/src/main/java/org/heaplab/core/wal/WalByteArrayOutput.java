package org.heaplab.core.wal;

import java.nio.ByteBuffer;

/**
 * The encode buffer of one {@link ChannelWalSink}: stands for HBase's
 * org.apache.hadoop.hbase.io.ByteArrayOutputStream as its WrapperAsyncFSOutput uses it (the WAL output
 * of a region server whose WAL is on a local file system, the labs' standalone HBase): a heap byte[]
 * that starts at 32 bytes and doubles when a write does not fit, holding the records appended since the
 * last flush. A flush takes it and starts a new one, so every group commit leaves its buffer, and every
 * array it outgrew, to the young collector. The file write copies it once more, into the JDK's cached
 * direct buffer.
 *
 * <pre>
 *   put:   [len|crc|seqId|table|region|count|cell|cell][len|crc|...|cell] ...   (one growing byte[])
 *   take:  the bytes so far, for the sink's write; the next put starts a fresh 32-byte array
 * </pre>
 *
 * <p>HBase on HDFS writes through FanOutOneBlockAsyncDFSOutput into Netty's pooled direct buffers
 * instead (no heap array per flush); the engine's WAL is a local file, as standalone HBase's is.
 *
 * <p>It knows nothing of the WAL format: the sink lays the records out (see ChannelWalSink's grammar).
 *
 * <p>Thread safety: not thread safe; the sink calls every method under its buffer lock.
 */
final class WalByteArrayOutput {
    /** HBase's ByteArrayOutputStream's default capacity. */
    static final int INITIAL_CAPACITY = 32;
    private static final int MAX_ARRAY_SIZE = Integer.MAX_VALUE - 8;

    private byte[] buf = new byte[INITIAL_CAPACITY];
    private int pos;

    /** Bytes appended since the last {@link #take}. */
    int size() {
        return pos;
    }

    /** Appends {@code v}, big-endian. */
    void putInt(int v) {
        grow(4);
        setInt(pos, v);
        pos += 4;
    }

    /** Appends the first {@code n} bytes of {@code src}. */
    void put(byte[] src, int n) {
        grow(n);
        System.arraycopy(src, 0, buf, pos, n);
        pos += n;
    }

    /** Appends {@code src} from its position to its limit (and moves its position to the limit). */
    void put(ByteBuffer src) {
        int n = src.remaining();
        grow(n);
        src.get(buf, pos, n);
        pos += n;
    }

    /** Appends four zero bytes, to be set by {@link #setInt} once known; returns where they are. */
    int reserveInt() {
        int where = pos;
        putInt(0);
        return where;
    }

    /** Writes {@code v} over the four bytes at {@code where}. */
    void setInt(int where, int v) {
        buf[where] = (byte) (v >>> 24);
        buf[where + 1] = (byte) (v >>> 16);
        buf[where + 2] = (byte) (v >>> 8);
        buf[where + 3] = (byte) v;
    }

    /**
     * The bytes appended so far (position 0, limit = size); this buffer starts over with a new array, as
     * WrapperAsyncFSOutput.flush swaps in a new ByteArrayOutputStream. The returned buffer is the caller's.
     */
    ByteBuffer take() {
        ByteBuffer out = ByteBuffer.wrap(buf, 0, pos);
        buf = new byte[INITIAL_CAPACITY];
        pos = 0;
        return out;
    }

    /** Doubles the array (at least to what is needed) when {@code extra} more bytes do not fit. */
    private void grow(int extra) {
        long needed = pos + (long) extra;
        if (needed <= buf.length) {
            return;
        }
        if (needed > MAX_ARRAY_SIZE) {
            throw new IllegalStateException("WAL buffer would exceed " + MAX_ARRAY_SIZE + " bytes");
        }
        long next = Math.max(Math.min((long) buf.length << 1, MAX_ARRAY_SIZE), needed);
        byte[] bigger = new byte[(int) next];
        System.arraycopy(buf, 0, bigger, 0, pos);
        buf = bigger;
    }
}
