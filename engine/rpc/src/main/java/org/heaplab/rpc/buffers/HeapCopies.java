package org.heaplab.rpc.buffers;

import java.util.concurrent.atomic.LongAdder;

/**
 * How many payload bytes the RPC servers of this process copied into heap memory, and how many times:
 * the mechanism behind the 1.x / 2.x difference, counted where each copy happens.
 *
 * <pre>
 *   request path                                       response path
 *     socket -&gt; heap request buffer (1.x, small          frame built in a heap byte[] (1.x responses,
 *       requests and tails of the 2.x pool)                error frames)
 *     a multi-segment body joined into one heap array    heap tail of a pooled response (pool exhausted)
 *     each cell copied into its own heap array (1.x)
 * </pre>
 *
 * Not counted: the request params (a table name and a few numbers, decoded into heap objects as HBase
 * decodes its protobuf header), copies into direct memory, and the memstore's own copy of a cell (the
 * storage, not the RPC path).
 *
 * <p>Process-wide (the copies happen in stateless decoders and encoders shared by every server of the
 * JVM): in-process tests with several servers see their sum. LongAdders: cheap enough to stay on.
 *
 * <p>Thread safety: any thread.
 */
public final class HeapCopies {
    /** Totals since the JVM started. */
    public record Snapshot(long requestBytes, long requestCopies, long responseBytes, long responseCopies) {
    }

    private static final LongAdder REQUEST_BYTES = new LongAdder();
    private static final LongAdder REQUEST_COPIES = new LongAdder();
    private static final LongAdder RESPONSE_BYTES = new LongAdder();
    private static final LongAdder RESPONSE_COPIES = new LongAdder();

    private HeapCopies() {
    }

    /** {@code bytes} of a request copied into heap memory once. */
    public static void request(long bytes) {
        REQUEST_BYTES.add(bytes);
        REQUEST_COPIES.increment();
    }

    /** {@code bytes} of a response built (or copied) in heap memory once. */
    public static void response(long bytes) {
        RESPONSE_BYTES.add(bytes);
        RESPONSE_COPIES.increment();
    }

    public static Snapshot snapshot() {
        return new Snapshot(REQUEST_BYTES.sum(), REQUEST_COPIES.sum(), RESPONSE_BYTES.sum(), RESPONSE_COPIES.sum());
    }
}
