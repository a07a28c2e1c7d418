package org.heaplab.rpc.server;

import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.buffers.PooledDirectResponseEncoder;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.buffers.ResponseEncoder;
import org.heaplab.rpc.buffers.ZeroCopyCellDecoder;
import org.heaplab.rpc.protocol.CellDecoder;
import org.heaplab.rpc.protocol.RpcConstants;

/** {@link RpcMemory} records built by hand for tests, with the default request size and read timeout bounds. */
public final class TestMemory {
    private TestMemory() {
    }

    /** The 2.x memory over {@code pool}: requests and responses in it, cells decoded as views. */
    public static RpcMemory pooled(DirectBufferPool pool) {
        return of(pool, ZeroCopyCellDecoder.INSTANCE, new PooledDirectResponseEncoder(pool));
    }

    /** Requests in {@code requests}, cells by {@code decoder}, responses by {@code encoder}. */
    public static RpcMemory of(RequestBufferAllocator requests, CellDecoder decoder, ResponseEncoder encoder) {
        return new RpcMemory(requests instanceof DirectBufferPool, requests, decoder, encoder,
            RpcConstants.DEFAULT_MAX_REQUEST_SIZE, RpcConstants.DEFAULT_READ_TIMEOUT_MS);
    }
}
