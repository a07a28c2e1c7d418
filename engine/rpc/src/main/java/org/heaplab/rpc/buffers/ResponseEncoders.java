package org.heaplab.rpc.buffers;

import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.protocol.RpcConstants;

/** Chooses the {@link ResponseEncoder} once at start-up. */
public final class ResponseEncoders {
    private ResponseEncoders() {
    }

    /**
     * hbase.server.allocator.pool.enabled true (and so pooled request buffers): {@link PooledDirectResponseEncoder}
     * over the same pool, as HBase 2.x's one ByteBuffAllocator serves requests and responses; false:
     * {@link HeapResponseEncoder}.
     */
    public static ResponseEncoder fromConf(Configuration conf, RequestBufferAllocator requestBuffers) {
        boolean pool = conf.getBoolean(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, RpcConstants.DEFAULT_ALLOCATOR_POOL_ENABLED);
        if (pool && requestBuffers instanceof DirectBufferPool p) {
            return new PooledDirectResponseEncoder(p);
        }
        return HeapResponseEncoder.INSTANCE;
    }
}
