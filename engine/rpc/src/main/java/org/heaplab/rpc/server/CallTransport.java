package org.heaplab.rpc.server;

import org.heaplab.rpc.buffers.ResponseFrame;

/**
 * How a call's response reaches its connection: one per connection, implemented by each
 * {@link RpcServer} (SimpleRpcServer: the socket channel, inline or through the Responder;
 * NettyRpcServer: the channel's event loop). {@link RpcCall} knows nothing else about the transport.
 *
 * <p>Thread safety: {@link #send} is called by any handler or completion thread; implementations keep
 * each frame whole and the frames of one connection in the order they were sent.
 */
public interface CallTransport {
    /**
     * Writes the frame, or queues it to be written, then releases it ({@link ResponseFrame#release}),
     * written or not (a closed connection drops it). Never throws.
     */
    void send(ResponseFrame frame);

    /** False once the connection is closed: a response sent now is dropped. */
    boolean isOpen();

    /** "host:port" of the peer, for log lines. */
    String remoteAddress();
}
