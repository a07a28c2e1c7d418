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
 * HBase 2.x request buffers, after HBase's ByteBuffAllocator: a pool of fixed-size DIRECT buffers
 * (hbase.server.allocator.buffer.size, 65 KB), created lazily up to hbase.server.allocator.max.buffer.count
 * and kept in a lock-free queue.
 *
 * <pre>
 * allocate(length):
 *   length &lt; minimal.allocate.size             -&gt; one heap buffer (counted as heap)
 *   else, while the remainder &gt;= minimal size  -&gt; take a whole pooled buffer (the last one may be partly used)
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
 * fallbacks, outstanding buffers), as the other allocators; responses ({@link #allocateWhole}) in their
 * own counters here, but outstanding with the requests.
 *
 * <p>Leak detection (tests): with {@code leakDetection} (or the system property
 * heaplab.rpc.leak.detection=true) every outstanding buffer remembers where it was allocated and
 * {@link #checkNoLeaks()} throws naming them.
 *
 * <p>Pitfalls: an {@link OutOfMemoryError} from allocateDirect after start-up (direct memory short)
 * does not fail the call: the request falls back to the heap and is counted; with presizing the same
 * shortage fails start-up instead, naming the keys to change.
 *
 * <p>Thread safety: lock-free; allocate and release from any threads.
 */
public final class PooledDirectRequestBuffers implements RequestBufferAllocator {
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

    /**
     * @param presize allocate all {@code maxCount} buffers now
     * @throws ConfigurationException when a parameter is out of range, or presizing cannot get the
     *     direct memory (naming the keys and the JVM flag to change)
     */
    public PooledDirectRequestBuffers(int bufferSize, int maxCount, int minAllocate, boolean presize,
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

    @Override
    public RequestBuffer allocate(int length) {
        // BEGIN SOLUTION pooled-request-buffers
        counters.countAllocation();
        if (length < minAllocate) {
            ByteBuffer small = ByteBuffer.allocate(length); // first: a failed allocation counts nothing
            counters.countHeapFallback();
            counters.countHeapBytes(length);
            return counters.track(new RequestBuffer(new ByteBuffer[] {small}, length, releaser));
        }
        List<ByteBuffer> segments = new ArrayList<>(length / bufferSize + 2);
        int remaining = length;
        while (remaining >= minAllocate && remaining > 0) {
            ByteBuffer b = take();
            if (b == null) {
                break; // exhausted: the rest comes from the heap
            }
            int n = Math.min(remaining, bufferSize);
            b.clear().limit(n);
            segments.add(b);
            counters.countPoolBytes(n);
            remaining -= n;
        }
        if (remaining > 0) {
            segments.add(heapRest(segments, remaining));
            counters.countHeapFallback();
            counters.countHeapBytes(remaining);
        }
        return counters.track(new RequestBuffer(segments.toArray(new ByteBuffer[0]), length, releaser));
        // END SOLUTION pooled-request-buffers
        // STUB pooled-request-buffers: throw new UnsupportedOperationException("not implemented: labs/03-offheap-write/README.md, Build it yourself (pooled-request-buffers)");
    }

    /** The heap part of a request the pool could not hold; on OutOfMemoryError the pooled part goes back first. */
    private ByteBuffer heapRest(List<ByteBuffer> pooled, int remaining) {
        try {
            return ByteBuffer.allocate(remaining);
        } catch (OutOfMemoryError e) {
            pooled.forEach(free::offer);
            throw e;
        }
    }

    /**
     * Buffers for a response of {@code length} bytes (2.x {@link PooledDirectResponseEncoder}): whole
     * pooled buffers whatever the size, as HBase's ByteBuffAllocator.allocateOneBuffer, so a small get's
     * answer is direct too; only what the exhausted pool cannot give comes from the heap. Counted apart
     * from requests ({@link #responsePoolBytes}, {@link #responseHeapBytes}); released like a request.
     */
    public RequestBuffer allocateWhole(int length) {
        responseAllocations.increment();
        if (length <= bufferSize) { // the usual response: one pooled buffer, no list
            ByteBuffer b = take();
            if (b != null) {
                b.clear().limit(length);
                responsePoolBytes.add(length);
                return counters.track(new RequestBuffer(new ByteBuffer[] {b}, length, releaser));
            }
        }
        List<ByteBuffer> segments = new ArrayList<>(length / bufferSize + 2);
        int remaining = length;
        while (remaining > 0) {
            ByteBuffer b = take();
            if (b == null) {
                break;
            }
            int n = Math.min(remaining, bufferSize);
            b.clear().limit(n);
            segments.add(b);
            responsePoolBytes.add(n);
            remaining -= n;
        }
        if (remaining > 0) {
            segments.add(heapRest(segments, remaining));
            responseHeapBytes.add(remaining);
            HeapCopies.response(remaining); // the encoder writes this tail of the response on the heap
        }
        return counters.track(new RequestBuffer(segments.toArray(new ByteBuffer[0]), length, releaser));
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
        return "PooledDirectRequestBuffers (up to " + maxCount + " direct buffers of " + bufferSize + " bytes = "
            + ((long) maxCount * bufferSize >> 20) + " MB, requests below " + minAllocate + " bytes and tails on the heap"
            + (counters.leakDetection() ? ", leak detection on" : "") + ")";
    }
}
