package org.heaplab.rpc;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * HBase 1.x request buffers: a FRESH heap byte[] per request, dead once the response is written. No
 * pool, no reservoir: the young-generation garbage the labs measure. Release only updates the counters.
 *
 * <p>Thread safety: counters only; safe from any thread.
 */
public final class HeapRequestBuffers implements RequestBufferAllocator {
    private final LongAdder heapBytes = new LongAdder();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final LongAdder allocations = new LongAdder();

    @Override
    public RequestBuffer allocate(int length) {
        byte[] bytes = new byte[length]; // first: an allocation that fails (OutOfMemoryError) counts nothing
        allocations.increment();
        heapBytes.add(length);
        outstanding.incrementAndGet();
        return new RequestBuffer(new ByteBuffer[] {ByteBuffer.wrap(bytes)}, length, b -> outstanding.decrementAndGet());
    }

    @Override
    public long heapAllocationBytes() {
        return heapBytes.sum();
    }

    @Override
    public long poolAllocationBytes() {
        return 0;
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
    public String describe() {
        return "HeapRequestBuffers (a fresh heap byte[] per request)";
    }
}
