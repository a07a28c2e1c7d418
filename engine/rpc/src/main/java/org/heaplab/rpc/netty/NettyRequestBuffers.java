package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.heaplab.rpc.HeapCopies;
import org.heaplab.rpc.RequestBuffer;
import org.heaplab.rpc.RequestBufferAllocator;
import org.heaplab.rpc.RpcConstants;

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
 * prove every one was.
 *
 * <p>Leak detection (tests): with the system property heaplab.rpc.leak.detection=true each outstanding
 * buffer remembers where it was wrapped and {@link #checkNoLeaks()} names them.
 *
 * <p>Thread safety: wrap on event loops, release from any thread; counters are atomic.
 */
public final class NettyRequestBuffers implements RequestBufferAllocator {
    private final ByteBufAllocator alloc;
    private final boolean leakDetection = Boolean.getBoolean(RpcConstants.LEAK_DETECTION_PROPERTY);
    private final LongAdder heapBytes = new LongAdder();
    private final LongAdder poolBytes = new LongAdder();
    private final LongAdder allocations = new LongAdder();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final Map<RequestBuffer, Throwable> sites = new ConcurrentHashMap<>();

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
        allocations.increment();
        (frame.isDirect() ? poolBytes : heapBytes).add(length);
        if (!frame.isDirect()) {
            HeapCopies.request(length); // Netty read the socket into a heap ByteBuf
        }
        outstanding.incrementAndGet();
        RequestBuffer b = RequestBuffer.of(segments, length, rb -> {
            outstanding.decrementAndGet();
            if (leakDetection) {
                sites.remove(rb);
            }
            frame.release();
        });
        if (leakDetection) {
            sites.put(b, new Throwable("request frame of " + length + " bytes wrapped here"));
        }
        return b;
    }

    /** {@code b} with position 0, limit = its length, big-endian (a slice only when it is not so already). */
    private static ByteBuffer zeroBased(ByteBuffer b) {
        return b.position() == 0 && b.limit() == b.capacity() && b.order() == java.nio.ByteOrder.BIG_ENDIAN ? b : b.slice();
    }

    /** A fresh buffer of {@code length} bytes from Netty's allocator (the server itself only wraps frames). */
    @Override
    public RequestBuffer allocate(int length) {
        ByteBuf b = alloc.buffer(length, length);
        b.writerIndex(length);
        return wrap(b);
    }

    @Override
    public long heapAllocationBytes() {
        return heapBytes.sum();
    }

    @Override
    public long poolAllocationBytes() {
        return poolBytes.sum();
    }

    @Override
    public int outstanding() {
        return outstanding.get();
    }

    @Override
    public long allocations() {
        return allocations.sum();
    }

    @Override
    public int pooledInUse() {
        return outstanding.get();
    }

    /** Throws when a wrapped frame was never released, naming where each was wrapped (leak detection on). */
    public void checkNoLeaks() {
        int n = outstanding.get();
        if (n == 0) {
            return;
        }
        IllegalStateException e = new IllegalStateException(n + " Netty request frame(s) were never released");
        sites.values().forEach(e::addSuppressed);
        throw e;
    }

    @Override
    public String describe() {
        return "NettyRequestBuffers (each frame stays in the pooled ByteBuf Netty read it into: "
            + alloc.getClass().getSimpleName() + (alloc.isDirectBufferPooled() ? ", direct pooled" : "")
            + (leakDetection ? ", leak detection on" : "") + ")";
    }
}
