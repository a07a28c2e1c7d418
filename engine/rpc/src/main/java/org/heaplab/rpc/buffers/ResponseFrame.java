package org.heaplab.rpc.buffers;

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
    private final Runnable afterRelease;

    private ResponseFrame(ByteBuffer[] buffers, RequestBuffer pooled) {
        this(buffers, pooled, null);
    }

    private ResponseFrame(ByteBuffer[] buffers, RequestBuffer pooled, Runnable afterRelease) {
        this.buffers = buffers;
        this.pooled = pooled;
        this.afterRelease = afterRelease;
    }

    /**
     * This frame (same buffers, same owner) with {@code hook} run right after its release, that is once
     * the transport wrote it or dropped it: {@link org.heaplab.rpc.server.RpcCall} closes the call's
     * closeAfterResponse resources there, so a server that writes later (the Responder, Netty's event loop)
     * still closes them only after the bytes left. Use the returned frame instead of this one.
     */
    public ResponseFrame withReleaseHook(Runnable hook) {
        Runnable before = afterRelease;
        return new ResponseFrame(buffers, pooled, before == null ? hook : () -> {
            before.run();
            hook.run();
        });
    }

    /** A frame in one heap array (error frames, the 1.x path). */
    public static ResponseFrame onHeap(byte[] frame) {
        HeapCopies.response(frame.length); // whoever built it, it was built in heap memory
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

    /** Gives pooled buffers back to their pool (no-op for a heap frame), then runs the release hook. Exactly once, after the write. */
    public void release() {
        try {
            if (pooled != null) {
                pooled.release();
            }
        } finally {
            if (afterRelease != null) {
                afterRelease.run();
            }
        }
    }
}
