package org.heaplab.rpc.protocol;

import java.util.List;
import org.heaplab.core.cell.KeyValue;

/**
 * A decoded response: either OK with params and cells, or an error with code, class and message (the
 * client rethrows an error as {@link org.heaplab.rpc.client.RemoteException#of}).
 */
public record Response(int callId, ErrorCode error, String errorClass, String message,
                       byte[] params, List<KeyValue> cells) {

    public static Response ok(int callId, byte[] params, List<KeyValue> cells) {
        return new Response(callId, null, null, null, params, cells);
    }

    public static Response error(int callId, ErrorCode code, String errorClass, String message) {
        return new Response(callId, code, errorClass, message, new byte[0], List.of());
    }

    public boolean isError() {
        return error != null;
    }

    public ParamReader paramReader() {
        return new ParamReader(params, callId);
    }
}
