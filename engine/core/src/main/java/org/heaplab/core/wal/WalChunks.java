package org.heaplab.core.wal;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The encode buffer of one {@link ChannelWalSink}: the bytes of records not yet written, in reusable
 * {@link #CHUNK_SIZE}-byte DIRECT chunks (a record may straddle chunks), as HBase's WAL writer encodes
 * into its output stream's buffer: no heap array per record, and the file write needs no copy into a
 * temporary direct buffer. At most {@link #MAX_DIRECT_CHUNKS} direct chunks are ever made (2 MB per
 * file); more buffered bytes (a disk far behind ASYNC_WAL appends) take heap chunks that are dropped
 * after their write.
 *
 * <pre>
 *   put:       [len|crc|seqId|table|region|count|cell|cell]   [len|crc|...|cell]  ...
 *              &lt;------------- chunk 0 (64 KB) ---------------&gt;&lt;--- chunk 1 ---
 *   takeFilled: the filled chunks swapped out for one gathering write; giveBack: to the free list
 * </pre>
 *
 * <p>It knows nothing of the WAL format: the sink lays the records out (see ChannelWalSink's grammar).
 *
 * <p>Ownership: the chunks {@link #takeFilled} returns belong to the caller (the sink's writer) until
 * it hands them to {@link #giveBack}; appends meanwhile go to fresh chunks.
 *
 * <p>Thread safety: not thread safe; the sink calls every method under its buffer lock.
 */
final class WalChunks {
    /** One encode chunk: HBase's hbase.wal.batch.size default, so a typical flush is one or two chunks. */
    static final int CHUNK_SIZE = 64 * 1024;
    /** Direct chunks made per file at most (2 MB): beyond, heap chunks that are not kept. */
    static final int MAX_DIRECT_CHUNKS = 32;

    private List<ByteBuffer> filled = new ArrayList<>();
    private List<ByteBuffer> spare = new ArrayList<>();
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private int directChunks;

    /** The chunk being filled: the last one, or a new one when it is full (or none was started). */
    private ByteBuffer tail() {
        ByteBuffer last = filled.isEmpty() ? null : filled.get(filled.size() - 1);
        if (last != null && last.hasRemaining()) {
            return last;
        }
        ByteBuffer c = free.poll();
        if (c == null) {
            c = newChunk();
        }
        filled.add(c);
        return c;
    }

    private ByteBuffer newChunk() {
        if (directChunks < MAX_DIRECT_CHUNKS) {
            try {
                ByteBuffer c = ByteBuffer.allocateDirect(CHUNK_SIZE);
                directChunks++;
                return c;
            } catch (OutOfMemoryError e) {
                directChunks = MAX_DIRECT_CHUNKS; // direct memory is short: do not try again for this file
            }
        }
        return ByteBuffer.allocate(CHUNK_SIZE);
    }

    /** Appends {@code v}, big-endian. */
    void putInt(int v) {
        put((byte) (v >>> 24));
        put((byte) (v >>> 16));
        put((byte) (v >>> 8));
        put((byte) v);
    }

    private void put(byte b) {
        tail().put(b);
    }

    /** Appends the first {@code n} bytes of {@code src}. */
    void put(byte[] src, int n) {
        int pos = 0;
        while (pos < n) {
            ByteBuffer dst = tail();
            int k = Math.min(dst.remaining(), n - pos);
            dst.put(src, pos, k);
            pos += k;
        }
    }

    /** Appends {@code src} from its position to its limit (and moves its position to the limit). */
    void put(ByteBuffer src) {
        while (src.hasRemaining()) {
            ByteBuffer dst = tail();
            int k = Math.min(dst.remaining(), src.remaining());
            dst.put(dst.position(), src, src.position(), k);
            dst.position(dst.position() + k);
            src.position(src.position() + k);
        }
    }

    /** Appends four zero bytes, to be set by {@link #setInt} once known; returns where they are. */
    long reserveInt() {
        ByteBuffer at = tail();
        long where = ((long) (filled.size() - 1) << 32) | at.position();
        putInt(0);
        return where;
    }

    /** Writes {@code v} over the four bytes reserved at {@code where}, going on in the next chunk at a chunk's end. */
    void setInt(long where, int v) {
        int chunk = (int) (where >>> 32);
        int pos = (int) where;
        for (int shift = 24; shift >= 0; shift -= 8) {
            ByteBuffer c = filled.get(chunk);
            if (pos == c.capacity()) {
                c = filled.get(++chunk);
                pos = 0;
            }
            c.put(pos++, (byte) (v >>> shift));
        }
    }

    /** The chunks filled so far, each up to its position; the next put starts a fresh chunk. */
    List<ByteBuffer> takeFilled() {
        List<ByteBuffer> out = filled;
        filled = spare; // empty
        spare = null;
        return out;
    }

    /** Takes back what {@link #takeFilled} returned; its direct chunks are reused unless {@code reuse} is false. */
    void giveBack(List<ByteBuffer> out, boolean reuse) {
        for (ByteBuffer c : out) {
            if (c.isDirect() && reuse) {
                free.add(c.clear());
            }
        }
        out.clear();
        spare = out;
    }
}
