package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.heaplab.rpc.buffers.HeapCopies;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.buffers.RequestBufferCounters;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * NettyRpcServer's request buffers: the frame stays in the pooled {@link ByteBuf} Netty read it into
 * (a retained slice of the connection's cumulation buffer, from Netty's PooledByteBufAllocator), seen
 * by the rest of the server as a {@link RequestBuffer} over that ByteBuf's memory. Nothing is copied:
 * the configured CellDecoder decodes views (2.x zero copy) or copies (1.x) straight from it.
 *
 * <pre>
 *   socket ──read──▶ cumulation ByteBuf (pooled, direct) ──readRetainedSlice──▶ frame ByteBuf (refCnt +1)
 *                                                                 │ wrap()
 *                                                                 ▼
 *                     RequestBuffer (segments = frame.nioBuffers(), release() = frame.release())
 * </pre>
 *
 * <p>Ownership: {@link #wrap} takes over the caller's reference to the frame; {@link RequestBuffer#release}
 * (exactly once: after the response is written and every hold completed, or when the request is refused)
 * gives it back to Netty. {@link #outstanding()} counts wrapped frames not yet released, so tests can
 * prove every one was; the counters are a {@link RequestBufferCounters}, as for the other allocators
 * (a frame in a direct ByteBuf counts as pool bytes, one in a heap ByteBuf as heap bytes).
 *
 * <p>Leak detection (tests): with the system property heaplab.rpc.leak.detection=true each outstanding
 * buffer remembers where it was wrapped and {@link #checkNoLeaks()} names them.
 *
 * <p>Thread safety: wrap on event loops, release from any thread; the counters are lock-free.
 */
public final class NettyRequestBuffers implements RequestBufferAllocator {
    private final ByteBufAllocator alloc;
    private final RequestBufferCounters counters =
        new RequestBufferCounters("Netty request frame", Boolean.getBoolean(RpcConstants.LEAK_DETECTION_PROPERTY));

    public NettyRequestBuffers(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** Netty's allocator the server's channels read into (also used by {@link #allocate}). */
    public ByteBufAllocator nettyAllocator() {
        return alloc;
    }

    /**
     * The frame as a RequestBuffer; takes over the caller's reference ({@code frame} is released by
     * {@link RequestBuffer#release}, never by the caller).
     */
    public RequestBuffer wrap(ByteBuf frame) {
        int length = frame.readableBytes();
        ByteBuffer[] segments;
        try {
            if (frame.nioBufferCount() == 1) { // the usual frame: one view, sliced once by Netty already
                segments = new ByteBuffer[] {zeroBased(frame.nioBuffer(frame.readerIndex(), length))};
            } else {
                segments = frame.nioBuffers(frame.readerIndex(), length);
                for (int i = 0; i < segments.length; i++) {
                    segments[i] = zeroBased(segments[i]);
                }
            }
        } catch (RuntimeException e) {
            frame.release();
            throw e;
        }
        counters.countAllocation();
        if (frame.isDirect()) {
            counters.countPoolBytes(length);
        } else {
            counters.countHeapBytes(length);
            HeapCopies.request(length); // Netty read the socket into a heap ByteBuf
        }
        return counters.track(RequestBuffer.of(segments, length, rb -> {
            counters.released(rb);
            frame.release();
        }));
    }

    /** {@code b} with position 0, limit = its length, big-endian (a slice only when it is not so already). */
    private static ByteBuffer zeroBased(ByteBuffer b) {
        return b.position() == 0 && b.limit() == b.capacity() && b.order() == ByteOrder.BIG_ENDIAN ? b : b.slice();
    }

    /** A fresh buffer of {@code length} bytes from Netty's allocator (the server itself only wraps frames). */
    @Override
    public RequestBuffer allocate(int length) {
        ByteBuf b = alloc.buffer(length, length);
        b.writerIndex(length);
        return wrap(b);
    }

    @Override
    public RequestBufferCounters counters() {
        return counters;
    }

    /** Every outstanding frame holds a pooled ByteBuf (Netty's) until released. */
    @Override
    public int pooledInUse() {
        return counters.outstanding();
    }

    @Override
    public String describe() {
        return "NettyRequestBuffers (each frame stays in the pooled ByteBuf Netty read it into: "
            + alloc.getClass().getSimpleName() + (alloc.isDirectBufferPooled() ? ", direct pooled" : "")
            + (counters.leakDetection() ? ", leak detection on" : "") + ")";
    }
}
