package org.heaplab.core.memstore;

import java.util.concurrent.atomic.LongAdder;

/**
 * Heap bytes the memstores of this process allocated to hold cells since start-up: MSLAB heap chunks
 * as they are created (pooled ones once, fallback and jumbo ones each time) and the plain storage's own
 * copy of a cell that did not already own its array. Memory the memstore keeps until its flush, not
 * per-request garbage: it tells a write path's allocation apart into what the memstore stores and what
 * the request path throws away. Process-wide (like the JVM's allocation counters); cheap LongAdder.
 *
 * <p>Thread safety: any thread.
 */
public final class MemstoreHeapBytes {
    private static final LongAdder BYTES = new LongAdder();

    private MemstoreHeapBytes() {
    }

    static void add(long bytes) {
        BYTES.add(bytes);
    }

    public static long total() {
        return BYTES.sum();
    }
}
