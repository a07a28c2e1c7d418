package org.heaplab.rpc.buffers;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The memory one request body was read into: one or more segments (pooled direct buffers, then at
 * most one heap tail), {@link #length()} bytes in all. Made by a {@link RequestBufferAllocator}.
 *
 * <p>Ownership: the server owns it from {@link RequestBufferAllocator#allocate} until {@link #release},
 * which it calls exactly once, after the call's response is written (or when the request is refused).
 * After release a pooled segment belongs to the next request: every cell decoded over it is invalid.
 *
 * <p>Pitfalls: releasing twice throws; forgetting to release leaks a pooled buffer (the leak detector
 * of {@link DirectBufferPool} reports it in tests).
 *
 * <p>Thread safety: filled by the connection's reader, then handed to one handler; release is
 * idempotence-checked atomically.
 */
public final class RequestBuffer {
    private final ByteBuffer[] segments;
    private final int length;
    private final Consumer<RequestBuffer> onRelease;
    private final AtomicBoolean released = new AtomicBoolean();

    RequestBuffer(ByteBuffer[] segments, int length, Consumer<RequestBuffer> onRelease) {
        this.segments = segments;
        this.length = length;
        this.onRelease = onRelease;
    }

    /** A buffer over memory another component owns (NettyRpcServer: a pooled ByteBuf); {@code onRelease} gives it back. */
    public static RequestBuffer of(ByteBuffer[] segments, int length, Consumer<RequestBuffer> onRelease) {
        return new RequestBuffer(segments, length, onRelease);
    }

    public int length() {
        return length;
    }

    /** The segments, each with position 0 and limit its used length. */
    public ByteBuffer[] segments() {
        return segments;
    }

    /**
     * Fills every segment from {@code in}; direct segments through {@code scratch} (the reader's own
     * reusable array: a stream cannot read into a direct buffer).
     */
    public void readFully(DataInputStream in, byte[] scratch) throws IOException {
        for (ByteBuffer s : segments) {
            if (s.hasArray()) {
                in.readFully(s.array(), s.arrayOffset(), s.limit());
                continue;
            }
            int pos = 0;
            while (pos < s.limit()) {
                int n = Math.min(scratch.length, s.limit() - pos);
                in.readFully(scratch, 0, n);
                s.put(pos, scratch, 0, n);
                pos += n;
            }
        }
    }

    /**
     * The body as one buffer: the only segment itself (no copy), or, for a body spread over several
     * segments, a copy into one heap buffer (this engine decodes cells over contiguous memory only).
     */
    public ByteBuffer contiguous() {
        if (segments.length == 1) {
            return segments[0];
        }
        byte[] all = new byte[length];
        HeapCopies.request(length);
        int pos = 0;
        for (ByteBuffer s : segments) {
            s.get(0, all, pos, s.limit());
            pos += s.limit();
        }
        return ByteBuffer.wrap(all);
    }

    /** Gives the segments back (pooled ones to the pool). Exactly once. */
    public void release() {
        if (!released.compareAndSet(false, true)) {
            throw new IllegalStateException("request buffer released twice");
        }
        onRelease.accept(this);
    }

    public boolean isReleased() {
        return released.get();
    }
}
