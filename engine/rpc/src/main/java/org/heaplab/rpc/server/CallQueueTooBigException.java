package org.heaplab.rpc.server;

import java.io.IOException;

/**
 * The call queue chosen for a call is full (HBase's CallQueueTooBigException): the call is not run and
 * is answered at once with SERVER_BUSY ({@link ErrorMapping}); the client backs off and retries.
 */
public final class CallQueueTooBigException extends IOException {
    public CallQueueTooBigException(String message) {
        super(message);
    }
}
