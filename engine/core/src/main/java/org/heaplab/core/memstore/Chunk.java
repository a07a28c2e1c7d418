package org.heaplab.core.memstore;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * One MSLAB chunk: a fixed block of memory (a heap byte[] or a slice of a direct buffer) and a bump
 * pointer. {@link #allocate} is a CAS on the pointer, so many writers share a chunk without a lock.
 * Cells copied in are handed out as views: a {@link KeyValue} over the byte[] (heap chunk) or a
 * {@link ByteBufferKeyValue} over the direct buffer (off-heap chunk).
 *
 * <p>Ownership: a chunk belongs to the {@link ChunkPool} that made it; between {@link ChunkPool#take}
 * and {@link ChunkPool#give} to one memstore. After the give its bytes are overwritten by the next
 * user, so no view into it may be read any more.
 *
 * <p>Thread safety: allocate and the copy into an allocated range are safe from many threads (each
 * writer writes only its own range, with absolute puts).
 */
public final class Chunk {
    /** Which memory a chunk is made of, and why (for the counters). */
    public enum Kind {
        /** A direct buffer from the off-heap pool. */
        OFFHEAP_POOLED,
        /** A heap byte[] from the on-heap pool. */
        ONHEAP_POOLED,
        /** A heap byte[] made because the pool was exhausted (counted as heap fallback; dropped on return). */
        HEAP_FALLBACK,
        /** A heap byte[] of exactly one cell above the max allocation (HBase's jumbo chunk; dropped on return). */
        JUMBO
    }

    private final ByteBuffer buffer;
    private final byte[] array;
    private final Kind kind;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicBoolean inUse = new AtomicBoolean();

    /** A heap chunk over {@code array}. */
    Chunk(byte[] array, Kind kind) {
        this.array = array;
        this.buffer = ByteBuffer.wrap(array);
        this.kind = kind;
    }

    /** An off-heap chunk over {@code direct} (a slice of the pool's slab, position 0, capacity = chunk size). */
    Chunk(ByteBuffer direct) {
        this.array = null;
        this.buffer = direct;
        this.kind = Kind.OFFHEAP_POOLED;
    }

    /** Reserves {@code size} bytes; returns their offset, or -1 when the chunk is too full. */
    int allocate(int size) {
        while (true) {
            int at = next.get();
            if (at + size > buffer.capacity()) {
                return -1;
            }
            if (next.compareAndSet(at, at + size)) {
                return at;
            }
        }
    }

    /** Copies {@code cell} into the range [at, at + its length) reserved by {@link #allocate}; returns the view. */
    Cell copyIn(Cell cell, int at) {
        int len = cell.getSerializedLength();
        if (array != null) {
            cell.copyTo(array, at);
            return new KeyValue(array, at, len);
        }
        if (cell instanceof KeyValue kv) {
            buffer.put(at, kv.getBuffer(), kv.getOffset(), len);
        } else if (cell instanceof ByteBufferKeyValue bb) {
            buffer.put(at, bb.buffer(), bb.offset(), len);
        } else {
            buffer.put(at, cell.serializedView(), 0, len);
        }
        return new ByteBufferKeyValue(buffer, at, len);
    }

    /** A view of the cell of {@code length} bytes stored at {@code offset} (the flat index rebuilds cells so). */
    Cell cellAt(int offset, int length) {
        return array != null ? new KeyValue(array, offset, length) : new ByteBufferKeyValue(buffer, offset, length);
    }

    /** The chunk's memory: the byte[] or the direct buffer, for identity look-ups (which chunk holds a cell). */
    Object memory() {
        return array != null ? array : buffer;
    }

    /** The chunk as a buffer (heap-wrapped or direct), for the flat index's entries; absolute access only. */
    ByteBuffer buffer() {
        return buffer;
    }

    public Kind kind() {
        return kind;
    }

    public boolean isOffHeap() {
        return kind == Kind.OFFHEAP_POOLED;
    }

    public int size() {
        return buffer.capacity();
    }

    /** Marks the chunk taken; false when it already was (a pool bug). */
    boolean markTaken() {
        return inUse.compareAndSet(false, true);
    }

    /** Marks the chunk returned and rewinds it; false when it was not taken (returned twice). */
    boolean markReturned() {
        if (!inUse.compareAndSet(true, false)) {
            return false;
        }
        next.set(0);
        return true;
    }
}
