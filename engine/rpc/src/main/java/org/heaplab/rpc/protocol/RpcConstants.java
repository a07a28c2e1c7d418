package org.heaplab.rpc.protocol;

import java.nio.charset.StandardCharsets;

/** Magic numbers, sizes and configuration keys of the wire protocol (see {@link FrameWriter}). */
public final class RpcConstants {
    /** The four bytes every connection starts with. */
    public static final byte[] MAGIC = "HLAB".getBytes(StandardCharsets.US_ASCII);
    /** Protocol version carried in the preamble's fifth byte. */
    public static final byte VERSION = 1;
    public static final int PREAMBLE_LENGTH = MAGIC.length + 1;

    /** callId(4) + method(1) + paramsLength(4) + cellBlockLength(4). */
    public static final int MIN_REQUEST_BODY = 13;
    /** callId(4) + status(1). */
    public static final int MIN_RESPONSE_BODY = 5;

    public static final byte STATUS_OK = 0;
    public static final byte STATUS_ERROR = 1;

    /** Call id used by error responses that belong to no call (bad preamble, unreadable frame). */
    public static final int NO_CALL_ID = -1;

    public static final String MAX_REQUEST_SIZE_KEY = "hbase.ipc.max.request.size";
    public static final int DEFAULT_MAX_REQUEST_SIZE = 268435456;
    public static final String HANDLER_COUNT_KEY = "hbase.regionserver.handler.count";
    public static final int DEFAULT_HANDLER_COUNT = 30;
    /** Call queue capacity; HBase's default is handler count x 10. */
    public static final String MAX_CALLQUEUE_LENGTH_KEY = "hbase.ipc.server.max.callqueue.length";
    public static final int CALLQUEUE_PER_HANDLER = 10;

    /**
     * Ours: a connection that stops sending in the middle of a frame (its preamble, a length or a body) for
     * this many ms is closed, whatever it declared; a client between frames may stay idle for good.
     */
    public static final String READ_TIMEOUT_KEY = "heaplab.ipc.server.read.timeout";
    public static final long DEFAULT_READ_TIMEOUT_MS = 30_000;
    /**
     * Ours, SimpleRpcServer: at most this many bytes of request bodies still arriving, over every connection
     * (a body is counted from its length until its last byte). SimpleRpcServer allocates a body's declared
     * length when the length arrives, as HBase's does; this bound keeps clients that declare large frames
     * and send nothing from filling the heap. A frame that does not fit now is answered SERVER_BUSY and its
     * bytes are discarded; default: a quarter of the heap.
     */
    public static final String MAX_RECEIVING_BYTES_KEY = "heaplab.ipc.server.max.receiving.bytes";

    /** Request buffers: true = pooled direct buffers (2.x ByteBuffAllocator), false = a heap byte[] per request (1.x). */
    public static final String ALLOCATOR_POOL_ENABLED_KEY = "hbase.server.allocator.pool.enabled";
    /** The engine's default is the 1.x path; profiles say which they use. */
    public static final boolean DEFAULT_ALLOCATOR_POOL_ENABLED = false;
    public static final String ALLOCATOR_BUFFER_SIZE_KEY = "hbase.server.allocator.buffer.size";
    /** 65 KB: HBase's default, just above a 64 KB block plus its header. */
    public static final int DEFAULT_ALLOCATOR_BUFFER_SIZE = 66560;
    /** Default: handlers x (2 MB / buffer size) x 2. */
    public static final String ALLOCATOR_MAX_BUFFER_COUNT_KEY = "hbase.server.allocator.max.buffer.count";
    /** Default: buffer size / 6; smaller requests (and a tail below it) come from the heap. */
    public static final String ALLOCATOR_MIN_ALLOCATE_SIZE_KEY = "hbase.server.allocator.minimal.allocate.size";
    /** Ours: allocate every pooled buffer at start-up (fails start-up when direct memory is short). */
    public static final String ALLOCATOR_PRESIZE_KEY = "heaplab.server.allocator.presize";
    /** Ours: how request cells are decoded: copying (1.x) or zero-copy (2.x); default follows the pool. */
    public static final String CELL_DECODER_KEY = "heaplab.rpc.cell.decoder";
    /** System property that turns on the request-buffer leak detector (tests). */
    public static final String LEAK_DETECTION_PROPERTY = "heaplab.rpc.leak.detection";

    private RpcConstants() {
    }
}
