package org.heaplab.rpc.buffers;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * HBase 2.x's pooled direct memory of the RPC path, after HBase's ByteBuffAllocator: one pool of fixed-size
 * DIRECT buffers (hbase.server.allocator.buffer.size, 65 KB), created lazily up to
 * hbase.server.allocator.max.buffer.count and kept in a lock-free queue. SimpleRpcServer reads request
 * bodies into it ({@link #allocate}) and {@link PooledDirectResponseEncoder} writes responses into it
 * ({@link #allocateResponse}), as HBase 2's one allocator serves both.
 *
 * <pre>
 * allocate(length), a request:
 *   length &lt; minimal.allocate.size             -&gt; one heap buffer (counted as heap)
 *   else whole pooled buffers while the remainder &gt;= minimal size, then the heap tail (below)
 * allocateResponse(length), a response:
 *   whole pooled buffers whatever the size (a small get's answer is direct too), then the heap tail
 *
 * the segment loop both share (wholeBuffersThenHeap), with a floor of minimal.allocate.size or 1:
 *   while the remainder &gt;= the floor           -&gt; take a whole pooled buffer (the last one may be partly used)
 *        pool exhausted (max count reached)      -&gt; stop taking
 *   remainder &gt; 0                                -&gt; one heap buffer for the tail (counted as heap)
 *
 *   e.g. buffer 66560, minimal 11093:  300 B -&gt; [heap 300];  30000 -&gt; [pool 30000];
 *        140000 -&gt; [pool 66560][pool 66560][heap 6880]
 * </pre>
 *
 * <p>Ownership: pooled buffers go back to the queue on {@link RequestBuffer#release}; heap segments
 * become garbage. A direct buffer is never freed while the server runs.
 *
 * <p>Counting: requests in {@link RequestBufferCounters} (allocations, pool and heap bytes, heap
 * fallbacks), as the other allocators; responses in their own counters here ({@link #responsePoolBytes},
 * {@link #responseHeapBytes}). Outstanding buffers and their allocation sites count both.
 *
 * <p>Leak detection (tests): with {@code leakDetection} (or the system property
 * heaplab.rpc.leak.detection=true) every outstanding buffer remembers where it was allocated and
 * {@link #checkNoLeaks()} throws naming them.
 *
 * <p>Pitfalls: an {@link OutOfMemoryError} from allocateDirect after start-up (direct memory short)
 * does not fail the call: the bytes fall back to the heap and are counted; with presizing the same
 * shortage fails start-up instead, naming the keys to change.
 *
 * <p>Thread safety: lock-free; allocate and release from any threads.
 */
public final class DirectBufferPool implements RequestBufferAllocator {
    /** Where an allocation counts the bytes it handed out: a request's or a response's counters. */
    private interface ByteCounts {
        void pooled(int n);

        /** Called at most once per allocation. */
        void heap(int n);
    }

    private final int bufferSize;
    private final int maxCount;
    private final int minAllocate;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger created = new AtomicInteger();
    private final RequestBufferCounters counters;
    private final LongAdder responseAllocations = new LongAdder();
    private final LongAdder responsePoolBytes = new LongAdder();
    private final LongAdder responseHeapBytes = new LongAdder();
    private final AtomicBoolean directFailureLogged = new AtomicBoolean();
    private final Consumer<String> log;
    private final Consumer<RequestBuffer> releaser = this::release;
    private final ByteCounts requestCounts = new ByteCounts() {
        @Override
        public void pooled(int n) {
            counters.countPoolBytes(n);
        }

        @Override
        public void heap(int n) {
            counters.countHeapFallback();
            counters.countHeapBytes(n);
        }
    };
    private final ByteCounts responseCounts = new ByteCounts() {
        @Override
        public void pooled(int n) {
            responsePoolBytes.add(n);
        }

        @Override
        public void heap(int n) {
            responseHeapBytes.add(n);
            HeapCopies.response(n); // the encoder writes this tail of the response on the heap
        }
    };

    /**
     * @param presize allocate all {@code maxCount} buffers now
     * @throws ConfigurationException when a parameter is out of range, or presizing cannot get the
     *     direct memory (naming the keys and the JVM flag to change)
     */
    public DirectBufferPool(int bufferSize, int maxCount, int minAllocate, boolean presize,
                            boolean leakDetection, Consumer<String> log) {
        if (bufferSize < 1024) {
            throw new ConfigurationException(RpcConstants.ALLOCATOR_BUFFER_SIZE_KEY + " must be at least 1024, got " + bufferSize);
        }
        if (maxCount < 0) {
            throw new ConfigurationException(RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY + " must be >= 0, got " + maxCount);
        }
        if (minAllocate < 0 || minAllocate > bufferSize) {
            throw new ConfigurationException(RpcConstants.ALLOCATOR_MIN_ALLOCATE_SIZE_KEY + " must be in [0, "
                + bufferSize + "], got " + minAllocate);
        }
        this.bufferSize = bufferSize;
        this.maxCount = maxCount;
        this.minAllocate = minAllocate;
        this.counters = new RequestBufferCounters("request buffer",
            leakDetection || Boolean.getBoolean(RpcConstants.LEAK_DETECTION_PROPERTY));
        this.log = log;
        if (presize) {
            try {
                for (int i = 0; i < maxCount; i++) {
                    free.add(ByteBuffer.allocateDirect(bufferSize));
                    created.incrementAndGet();
                }
            } catch (OutOfMemoryError e) {
                free.clear();
                throw new ConfigurationException("cannot allocate the request buffer pool: " + maxCount + " direct buffers of "
                    + bufferSize + " bytes (" + ((long) maxCount * bufferSize >> 20) + " MB) failed after " + created.get()
                    + " (" + e.getMessage() + "); lower " + RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY + " or "
                    + RpcConstants.ALLOCATOR_BUFFER_SIZE_KEY + ", or raise -XX:MaxDirectMemorySize");
            }
        }
    }

    /** A request body of {@code length} bytes (the request rule: see the class comment). */
    @Override
    public RequestBuffer allocate(int length) {
        // BEGIN SOLUTION pooled-request-buffers
        counters.countAllocation();
        if (length < minAllocate) {
            ByteBuffer small = ByteBuffer.allocate(length); // first: a failed allocation counts nothing
            requestCounts.heap(length);
            return counters.track(new RequestBuffer(new ByteBuffer[] {small}, length, releaser));
        }
        return wholeBuffersThenHeap(length, minAllocate, requestCounts);
        // END SOLUTION pooled-request-buffers
        // STUB pooled-request-buffers: throw new UnsupportedOperationException("not implemented: labs/03-offheap-write/README.md, Build it yourself (pooled-request-buffers)");
    }

    /**
     * Buffers for a response of {@code length} bytes (2.x {@link PooledDirectResponseEncoder}): whole
     * pooled buffers whatever the size, as HBase's ByteBuffAllocator.allocateOneBuffer, so a small get's
     * answer is direct too; only what the exhausted pool cannot give comes from the heap. Counted apart
     * from requests ({@link #responsePoolBytes}, {@link #responseHeapBytes}); released like a request.
     */
    public RequestBuffer allocateResponse(int length) {
        responseAllocations.increment();
        if (length <= bufferSize) { // the usual response: one pooled buffer, no list
            ByteBuffer b = take();
            if (b != null) {
                b.clear().limit(length);
                responseCounts.pooled(length);
                return counters.track(new RequestBuffer(new ByteBuffer[] {b}, length, releaser));
            }
        }
        return wholeBuffersThenHeap(length, 1, responseCounts);
    }

    /**
     * The one segment loop: whole pooled buffers while at least {@code floor} bytes remain, each limited to
     * the bytes it will hold; then one heap buffer for the rest, or for everything the exhausted pool could
     * not give. Counts into {@code counts} and tracks the buffer as outstanding.
     */
    private RequestBuffer wholeBuffersThenHeap(int length, int floor, ByteCounts counts) {
        // BEGIN SOLUTION pooled-request-buffers
        List<ByteBuffer> segments = new ArrayList<>(length / bufferSize + 2);
        int remaining = length;
        while (remaining >= floor && remaining > 0) {
            ByteBuffer b = take();
            if (b == null) {
                break; // exhausted: the rest comes from the heap
            }
            int n = Math.min(remaining, bufferSize);
            b.clear().limit(n);
            segments.add(b);
            counts.pooled(n);
            remaining -= n;
        }
        if (remaining > 0) {
            segments.add(heapRest(segments, remaining));
            counts.heap(remaining);
        }
        return counters.track(new RequestBuffer(segments.toArray(new ByteBuffer[0]), length, releaser));
        // END SOLUTION pooled-request-buffers
        // STUB pooled-request-buffers: throw new UnsupportedOperationException("not implemented: labs/03-offheap-write/README.md, Build it yourself (pooled-request-buffers)");
    }

    /** The heap part of an allocation the pool could not hold; on OutOfMemoryError the pooled part goes back first. */
    private ByteBuffer heapRest(List<ByteBuffer> pooled, int remaining) {
        try {
            return ByteBuffer.allocate(remaining);
        } catch (OutOfMemoryError e) {
            pooled.forEach(free::offer);
            throw e;
        }
    }

    /** Response bytes written into pooled buffers so far. */
    public long responsePoolBytes() {
        return responsePoolBytes.sum();
    }

    /** Response bytes that fell back to the heap (pool exhausted) so far. */
    public long responseHeapBytes() {
        return responseHeapBytes.sum();
    }

    /** Responses encoded into this pool so far. */
    public long responseAllocations() {
        return responseAllocations.sum();
    }

    private ByteBuffer take() {
        ByteBuffer b = free.poll();
        if (b != null) {
            return b;
        }
        while (true) {
            int n = created.get();
            if (n >= maxCount) {
                return null;
            }
            if (created.compareAndSet(n, n + 1)) {
                try {
                    return ByteBuffer.allocateDirect(bufferSize);
                } catch (OutOfMemoryError e) {
                    created.decrementAndGet();
                    if (directFailureLogged.compareAndSet(false, true)) {
                        log.accept("request buffer pool: direct memory exhausted after " + n + " buffers (" + e.getMessage()
                            + "); requests fall back to the heap. Raise -XX:MaxDirectMemorySize or lower "
                            + RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY);
                    }
                    return null;
                }
            }
        }
    }

    private void release(RequestBuffer b) {
        for (ByteBuffer s : b.segments()) {
            if (s.isDirect()) {
                free.offer(s);
            }
        }
        counters.released(b);
    }

    @Override
    public RequestBufferCounters counters() {
        return counters;
    }

    @Override
    public int pooledInUse() {
        return created.get() - free.size();
    }

    /** Direct buffers created so far (at most the max count). */
    public int createdBuffers() {
        return created.get();
    }

    /** Pooled buffers idle in the queue. */
    public int freeBuffers() {
        return free.size();
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int maxCount() {
        return maxCount;
    }

    public int minAllocate() {
        return minAllocate;
    }

    @Override
    public String describe() {
        return "DirectBufferPool (up to " + maxCount + " direct buffers of " + bufferSize + " bytes = "
            + ((long) maxCount * bufferSize >> 20) + " MB, requests below " + minAllocate + " bytes and tails on the heap"
            + (counters.leakDetection() ? ", leak detection on" : "") + ")";
    }
}
