package org.heaplab.rpc;

import java.io.IOException;

/**
 * A region server's RPC front end: accepts connections, decodes requests, hands them to handler
 * threads that run an {@link RpcService}, and writes the responses. Implementations differ only in
 * how bytes move (BlockingRpcServer: a thread per connection and heap buffers; SimpleRpcServer and
 * NettyRpcServer later), never in the protocol.
 *
 * <p>Lifecycle: {@link #start()} once, then {@link #stop()} once; both may be called from any thread.
 */
public interface RpcServer extends AutoCloseable {

    /** Binds the port and starts serving; throws java.net.BindException when the port is taken. */
    void start() throws IOException;

    /** The bound port (useful when configured with port 0). */
    int port();

    /**
     * Stops accepting connections and requests, lets the handlers finish the calls already queued
     * and send their responses, then closes every connection. Idempotent.
     */
    void stop();

    @Override
    default void close() {
        stop();
    }
}
