package org.heaplab.rpc.protocol;

import java.io.IOException;

/**
 * A frame that cannot be decoded. Carries the call id when it could be read (else
 * {@link RpcConstants#NO_CALL_ID}) and the error code the server answers with.
 */
public final class MalformedFrameException extends IOException {
    private final int callId;
    private final ErrorCode code;

    public MalformedFrameException(int callId, ErrorCode code, String message) {
        super(message);
        this.callId = callId;
        this.code = code;
    }

    public int callId() {
        return callId;
    }

    public ErrorCode code() {
        return code;
    }
}
