package org.heaplab.rpc;

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

    private RpcConstants() {
    }
}
