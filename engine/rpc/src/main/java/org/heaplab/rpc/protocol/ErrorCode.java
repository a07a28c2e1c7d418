package org.heaplab.rpc.protocol;

/** Error codes carried by error responses (a short on the wire), with the failure each one names. */
public enum ErrorCode {
    /** The connection did not start with "HLAB" and a version this server speaks; the server closes it. */
    BAD_PREAMBLE(1),
    /** The frame could not be decoded (lengths out of range, truncated params, bad cells). */
    MALFORMED_REQUEST(2),
    /** The request frame exceeds hbase.ipc.max.request.size; the server closes the connection. */
    REQUEST_TOO_BIG(3),
    /** The method code is not one of {@link Method}. */
    UNKNOWN_METHOD(4),
    TABLE_NOT_FOUND(5),
    TABLE_EXISTS(6),
    ILLEGAL_ARGUMENT(7),
    /** The storage engine failed with an I/O error. */
    IO_ERROR(8),
    /** The server is stopping and takes no new calls. */
    SERVER_STOPPING(9),
    /** Anything else (a bug): the message carries the exception. */
    SERVER_ERROR(10),
    /**
     * This region server does not serve the region holding the row (the client's location is stale):
     * the client drops its cached location, asks the master again and retries. Nothing was applied.
     */
    NOT_SERVING_REGION(11),
    /**
     * The call queue is full (HBase's CallQueueTooBigException): the call was not run; the client backs
     * off and retries.
     */
    SERVER_BUSY(12),
    /**
     * A cell names a column family its table does not have (HBase's NoSuchColumnFamilyException, a
     * DoNotRetryIOException): nothing of the request was applied; the client does not retry it.
     */
    NO_SUCH_COLUMN_FAMILY(13);

    public final short code;

    ErrorCode(int code) {
        this.code = (short) code;
    }

    /** The error with wire code {@code code}; unknown codes read as SERVER_ERROR. */
    public static ErrorCode of(short code) {
        for (ErrorCode e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return SERVER_ERROR;
    }
}
