package org.heaplab.rpc.server;

import java.io.IOException;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.buffers.ResponseEncoder;
import org.heaplab.rpc.protocol.CellDecoder;

/**
 * A server's RPC front end: accepts connections, decodes requests into {@link RpcCall}s, dispatches
 * them to its {@link RpcScheduler} (whose handler threads run the {@link RpcService}), and writes the
 * responses. Implementations differ only in how bytes move (SimpleRpcServer: HBase 1.x's listener,
 * readers and responder on NIO selectors; NettyRpcServer: HBase 2.x's event loops), never in the
 * protocol or the scheduling. Chosen once at start-up by {@link RpcServers#fromConf}.
 *
 * <p>The parts every request goes through, the same whatever moves the bytes (decoder, encoder,
 * scheduler, metrics), sit in the server's {@link RequestIntake}; the getters below read them there. An
 * implementation provides its intake, its request buffers and how it moves bytes.
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

    /** The implementation's name as hbase.rpc.server.impl spells it ("SimpleRpcServer", "NettyRpcServer"). */
    String name();

    /** For the start-up log: the name and how bytes move (NettyRpcServer: epoll or NIO, and why). */
    default String describe() {
        return name();
    }

    /** Where the server hands every whole request frame; made once at construction. */
    RequestIntake intake();

    /** Where request bodies are read (its counters: heap vs pooled bytes). */
    RequestBufferAllocator allocator();

    /** Handler threads (the scheduler's). */
    default int handlerCount() {
        return scheduler().handlerCount();
    }

    /** Call queues and handlers (the metrics endpoint reads its queue figures). */
    default RpcScheduler scheduler() {
        return intake().scheduler();
    }

    /** Per-method call counts and latencies. */
    default RpcMetrics metrics() {
        return intake().metrics();
    }

    /** How request cells are decoded (copies or views over the request buffer). */
    default CellDecoder cellDecoder() {
        return intake().decoder();
    }

    /** How OK responses are encoded (heap or pooled direct buffers). */
    default ResponseEncoder responseEncoder() {
        return intake().encoder();
    }
}
