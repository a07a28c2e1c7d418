package org.heaplab.rpc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.simple.SimpleRpcServer;

/**
 * Transitional: the thread-per-connection server of issues 1-4 was replaced by
 * {@link SimpleRpcServer} (HBase 1.x's real shape: listener, readers on selectors, responder). This
 * name now builds a SimpleRpcServer, so code not yet moved to {@link RpcServers#fromConf} keeps
 * compiling; it will be deleted once nothing refers to it.
 */
@Deprecated
public final class BlockingRpcServer implements RpcServer {
    private final SimpleRpcServer delegate;

    public BlockingRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, Consumer<String> log) {
        delegate = new SimpleRpcServer(bindAddress, service, conf, log);
    }

    public BlockingRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, Consumer<String> log,
                             RequestBufferAllocator allocator, CellDecoder decoder) {
        delegate = new SimpleRpcServer(bindAddress, service, conf, log, allocator, decoder);
    }

    public BlockingRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, Consumer<String> log,
                             RequestBufferAllocator allocator, CellDecoder decoder, ResponseEncoder encoder) {
        delegate = new SimpleRpcServer(bindAddress, service, conf, log, allocator, decoder, encoder);
    }

    @Override
    public void start() throws IOException {
        delegate.start();
    }

    @Override
    public int port() {
        return delegate.port();
    }

    @Override
    public void stop() {
        delegate.stop();
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public int handlerCount() {
        return delegate.handlerCount();
    }

    @Override
    public RpcScheduler scheduler() {
        return delegate.scheduler();
    }

    @Override
    public RpcMetrics metrics() {
        return delegate.metrics();
    }

    @Override
    public RequestBufferAllocator allocator() {
        return delegate.allocator();
    }

    @Override
    public CellDecoder cellDecoder() {
        return delegate.cellDecoder();
    }

    @Override
    public ResponseEncoder responseEncoder() {
        return delegate.responseEncoder();
    }
}
