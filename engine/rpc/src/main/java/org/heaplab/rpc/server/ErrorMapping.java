package org.heaplab.rpc.server;

import java.io.IOException;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.Response;

/** Maps a failed call's exception to the error response the client sees. */
public final class ErrorMapping {
    private ErrorMapping() {
    }

    public static Response toResponse(int callId, Throwable t) {
        if (t instanceof MalformedFrameException m) {
            return Response.error(callId, m.code(), t.getClass().getName(), t.getMessage());
        }
        return Response.error(callId, code(t), t.getClass().getName(), message(t));
    }

    static ErrorCode code(Throwable t) {
        String name = t.getClass().getSimpleName();
        if (name.equals("TableNotFoundException")) {
            return ErrorCode.TABLE_NOT_FOUND;
        }
        if (name.equals("TableExistsException")) {
            return ErrorCode.TABLE_EXISTS;
        }
        if (name.equals("NotServingRegionException")) {
            return ErrorCode.NOT_SERVING_REGION;
        }
        if (name.equals("CallQueueTooBigException")) {
            return ErrorCode.SERVER_BUSY;
        }
        if (name.equals("NoSuchColumnFamilyException")) { // an IOException: before the IO_ERROR catch-all
            return ErrorCode.NO_SUCH_COLUMN_FAMILY;
        }
        if (t instanceof IllegalArgumentException || name.equals("ConfigurationException")) {
            return ErrorCode.ILLEGAL_ARGUMENT;
        }
        if (t instanceof IOException) {
            return ErrorCode.IO_ERROR;
        }
        return ErrorCode.SERVER_ERROR;
    }

    private static String message(Throwable t) {
        return t.getMessage() == null ? t.getClass().getName() : t.getMessage();
    }
}
