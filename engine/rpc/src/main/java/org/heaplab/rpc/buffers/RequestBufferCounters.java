package org.heaplab.rpc.buffers;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@link RequestBufferAllocator} has handed out, kept in one place for every allocator: requests
 * served, their bytes on the heap and in pooled buffers, the requests that fell back to the heap although
 * pooling is on, and the buffers not yet released. The lab's mechanism metrics read these counters
 * (through the allocator's getters), and tests read {@link #outstanding()} to prove every buffer came back.
 *
 * <p>Leak detection (tests): when on, {@link #track} remembers where each buffer was handed out (a
 * Throwable, so with its stack) until {@link #released}; {@link #checkNoLeaks()} throws naming them. Off, it
 * costs nothing but the outstanding count.
 *
 * <p>Ownership: each allocator owns one; only it counts (its allocate and its buffers' release), anyone may
 * read.
 *
 * <p>Thread safety: lock-free; count, track and release from any threads at once. The getters are not a
 * snapshot: read while requests are in flight, one counter may already include a request another does not.
 */
public final class RequestBufferCounters {
    private final String what;
    private final boolean leakDetection;
    private final LongAdder allocations = new LongAdder();
    private final LongAdder heapBytes = new LongAdder();
    private final LongAdder poolBytes = new LongAdder();
    private final LongAdder heapFallbacks = new LongAdder();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final Map<RequestBuffer, Throwable> allocationSites = new ConcurrentHashMap<>();

    /**
     * @param what how {@link #checkNoLeaks()} names the buffers ("request buffer", "Netty request frame")
     * @param leakDetection remember where each outstanding buffer was handed out
     */
    public RequestBufferCounters(String what, boolean leakDetection) {
        this.what = what;
        this.leakDetection = leakDetection;
    }

    /** One request served (call it once per allocate, whatever memory the request gets). */
    public void countAllocation() {
        allocations.increment();
    }

    /** {@code n} bytes of a request handed out on the heap. */
    public void countHeapBytes(long n) {
        heapBytes.add(n);
    }

    /** {@code n} bytes of a request handed out in pooled buffers. */
    public void countPoolBytes(long n) {
        poolBytes.add(n);
    }

    /** One request that took some of its bytes from the heap although pooling is on (at most once a request). */
    public void countHeapFallback() {
        heapFallbacks.increment();
    }

    /** Counts {@code b} as outstanding (and where it was made, leak detection on); returns it. */
    public RequestBuffer track(RequestBuffer b) {
        outstanding.incrementAndGet();
        if (leakDetection) {
            allocationSites.put(b, new Throwable(what + " of " + b.length() + " bytes allocated here"));
        }
        return b;
    }

    /** {@code b} was released: no longer outstanding. Call it once per tracked buffer. */
    public void released(RequestBuffer b) {
        outstanding.decrementAndGet();
        if (leakDetection) {
            allocationSites.remove(b);
        }
    }

    /**
     * Throws when any buffer is outstanding, with the allocation site of each (leak detection on) as
     * suppressed exceptions. Call it when no request can be in flight (a stopped server, a test's end).
     */
    public void checkNoLeaks() {
        int n = outstanding.get();
        if (n == 0) {
            return;
        }
        IllegalStateException e = new IllegalStateException(n + " " + what + "(s) were never released");
        allocationSites.values().forEach(e::addSuppressed);
        throw e;
    }

    /** Requests served so far. */
    public long allocations() {
        return allocations.sum();
    }

    /** Request bytes handed out on the heap so far. */
    public long heapBytes() {
        return heapBytes.sum();
    }

    /** Request bytes handed out in pooled buffers so far. */
    public long poolBytes() {
        return poolBytes.sum();
    }

    /** Requests that took some bytes from the heap although pooling is on. */
    public long heapFallbacks() {
        return heapFallbacks.sum();
    }

    /** Buffers tracked and not yet released. */
    public int outstanding() {
        return outstanding.get();
    }

    /** True when allocation sites are remembered. */
    public boolean leakDetection() {
        return leakDetection;
    }
}
