package org.heaplab.rpc;

import java.io.IOException;

/** An error response from the server, rethrown on the calling client thread. */
public final class RemoteException extends IOException {
    private final ErrorCode code;
    private final String errorClass;

    public RemoteException(ErrorCode code, String errorClass, String message) {
        super(message);
        this.code = code;
        this.errorClass = errorClass;
    }

    public ErrorCode code() {
        return code;
    }

    /** The server-side exception class name (e.g. org.heaplab.core.region.TableNotFoundException). */
    public String errorClass() {
        return errorClass;
    }
}
