package org.heaplab.rpc;

import java.nio.ByteBuffer;

/**
 * One encoded response frame (length prefix included) ready for a gathering write: one heap buffer
 * (1.x {@link HeapResponseEncoder}) or pooled direct buffers (2.x {@link PooledDirectResponseEncoder}).
 *
 * <p>Ownership: the server writes {@link #buffers()} (consuming their positions), then calls
 * {@link #release()} exactly once, which gives pooled buffers back; nothing may read them afterwards.
 */
public final class ResponseFrame {
    private final ByteBuffer[] buffers;
    private final RequestBuffer pooled;

    private ResponseFrame(ByteBuffer[] buffers, RequestBuffer pooled) {
        this.buffers = buffers;
        this.pooled = pooled;
    }

    /** A frame in one heap array (error frames, the 1.x path). */
    public static ResponseFrame onHeap(byte[] frame) {
        return new ResponseFrame(new ByteBuffer[] {ByteBuffer.wrap(frame)}, null);
    }

    /** A frame written into {@code pooled}'s segments (each flipped: position 0, limit = bytes written). */
    static ResponseFrame pooled(RequestBuffer pooled) {
        return new ResponseFrame(pooled.segments(), pooled);
    }

    /** The frame's bytes, in order, from each buffer's position to its limit. */
    public ByteBuffer[] buffers() {
        return buffers;
    }

    /** Total bytes still to write. */
    public long remaining() {
        long n = 0;
        for (ByteBuffer b : buffers) {
            n += b.remaining();
        }
        return n;
    }

    /** True when any buffer is off heap. */
    public boolean isDirect() {
        for (ByteBuffer b : buffers) {
            if (b.isDirect()) {
                return true;
            }
        }
        return false;
    }

    /** Gives pooled buffers back to their pool (no-op for a heap frame). Exactly once, after the write. */
    public void release() {
        if (pooled != null) {
            pooled.release();
        }
    }
}
