package org.heaplab.rpc.buffers;

import java.nio.ByteBuffer;

/**
 * HBase 1.x request buffers: a FRESH heap byte[] per request, dead once the response is written. No
 * pool, no reservoir: the young-generation garbage the labs measure. Release only updates the counters.
 *
 * <p>Thread safety: counters only ({@link RequestBufferCounters}); safe from any thread.
 */
public final class HeapRequestBuffers implements RequestBufferAllocator {
    private final RequestBufferCounters counters = new RequestBufferCounters("request buffer", false);

    @Override
    public RequestBuffer allocate(int length) {
        byte[] bytes = new byte[length]; // first: an allocation that fails (OutOfMemoryError) counts nothing
        counters.countAllocation();
        counters.countHeapBytes(length);
        return counters.track(new RequestBuffer(new ByteBuffer[] {ByteBuffer.wrap(bytes)}, length, counters::released));
    }

    @Override
    public RequestBufferCounters counters() {
        return counters;
    }

    @Override
    public String describe() {
        return "HeapRequestBuffers (a fresh heap byte[] per request)";
    }
}
