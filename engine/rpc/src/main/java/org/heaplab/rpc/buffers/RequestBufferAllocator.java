package org.heaplab.rpc.buffers;

/**
 * Where the RPC server reads request bodies: the switch between HBase 1.x's fresh heap byte[] per
 * request ({@link HeapRequestBuffers}) and 2.x's pooled direct buffers ({@link DirectBufferPool},
 * HBase's ByteBuffAllocator rules). Chosen once at start-up ({@link org.heaplab.rpc.server.RpcMemory#fromConf}).
 *
 * <p>Ownership: {@link #allocate} hands the caller a {@link RequestBuffer} that the caller must
 * {@link RequestBuffer#release} exactly once, after the last use of anything decoded over it.
 *
 * <p>Counting: every implementation keeps its figures in one {@link RequestBufferCounters}
 * ({@link #counters()}); the getters here read it, so the three allocators count alike.
 *
 * <p>Thread safety: implementations are safe for concurrent use by every reader and handler thread.
 */
public interface RequestBufferAllocator {
    /** A buffer of exactly {@code length} bytes (segments filled by the caller). */
    RequestBuffer allocate(int length);

    /** What this allocator has handed out and not yet got back (its own; the getters below read it). */
    RequestBufferCounters counters();

    /** Bytes handed out from the heap so far (every byte for the heap path; small requests and tails for the pool). */
    default long heapAllocationBytes() {
        return counters().heapBytes();
    }

    /** Bytes handed out from pooled buffers so far. */
    default long poolAllocationBytes() {
        return counters().poolBytes();
    }

    /** heap / (heap + pool) bytes, 0 before the first allocation. */
    default double heapAllocationRatio() {
        long heap = heapAllocationBytes();
        long total = heap + poolAllocationBytes();
        return total == 0 ? 0 : (double) heap / total;
    }

    /** Buffers allocated and not yet released. */
    default int outstanding() {
        return counters().outstanding();
    }

    /** Buffers allocated so far (one per request). */
    default long allocations() {
        return counters().allocations();
    }

    /** Allocations that took some bytes from the heap although pooling is on (0 on the heap path). */
    default long heapFallbacks() {
        return counters().heapFallbacks();
    }

    /** Pooled buffers handed out and not yet back (0 on the heap path). */
    default int pooledInUse() {
        return 0;
    }

    /**
     * Throws when a buffer was never released, naming where each was allocated (leak detection on). Call
     * it when no request can be in flight (a stopped server, a test's end).
     */
    default void checkNoLeaks() {
        counters().checkNoLeaks();
    }

    /** One line for the start-up log: the implementation and its parameters. */
    String describe();
}
