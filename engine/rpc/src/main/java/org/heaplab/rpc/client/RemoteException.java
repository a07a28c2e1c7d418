package org.heaplab.rpc.client;

import java.io.IOException;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Response;

/** An error response from the server, rethrown on the calling client thread. */
public final class RemoteException extends IOException {
    private final ErrorCode code;
    private final String errorClass;

    public RemoteException(ErrorCode code, String errorClass, String message) {
        super(message);
        this.code = code;
        this.errorClass = errorClass;
    }

    /** The error response {@code r} as the exception a client call throws. */
    public static RemoteException of(Response r) {
        return new RemoteException(r.error(), r.errorClass(), r.message());
    }

    public ErrorCode code() {
        return code;
    }

    /** The server-side exception class name (e.g. org.heaplab.core.region.TableNotFoundException). */
    public String errorClass() {
        return errorClass;
    }
}
