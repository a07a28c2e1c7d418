package org.heaplab.rpc.simple;

import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * The bound on request bodies still arriving, over every connection of a {@link SimpleRpcServer}
 * ({@link RpcConstants#MAX_RECEIVING_BYTES_KEY}): a body's declared length is reserved before its buffer
 * is allocated and given back once it has arrived or its connection closed, so clients that declare large
 * frames and send nothing cannot fill the heap.
 *
 * <p>Thread safety: lock-free; every reader thread reserves and releases.
 */
final class ReceivingBytes {
    private final AtomicLong inUse = new AtomicLong();
    private final long max;

    ReceivingBytes(long max) {
        this.max = max;
    }

    /** Room for a body of {@code n} bytes still to arrive; false when the bodies arriving leave too little. */
    boolean reserve(int n) {
        while (true) {
            long now = inUse.get();
            if (now + n > max) {
                return false;
            }
            if (inUse.compareAndSet(now, now + n)) {
                return true;
            }
        }
    }

    /** The body of {@code n} bytes has arrived in full, or its connection closed. */
    void release(int n) {
        inUse.addAndGet(-n);
    }

    long inUse() {
        return inUse.get();
    }

    long max() {
        return max;
    }
}
