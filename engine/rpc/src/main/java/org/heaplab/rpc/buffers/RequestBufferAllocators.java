package org.heaplab.rpc.buffers;

import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.protocol.CellDecoder;
import org.heaplab.rpc.protocol.RpcConstants;

/** Chooses the request-buffer and cell-decoding implementations once at start-up from the configuration. */
public final class RequestBufferAllocators {
    private static final int TWO_MB = 2 * 1024 * 1024;

    private RequestBufferAllocators() {
    }

    /**
     * hbase.server.allocator.pool.enabled false: {@link HeapRequestBuffers}; true:
     * {@link DirectBufferPool} with HBase's defaults (buffer 66560 bytes, max count
     * handlers x (2 MB / buffer size) x 2, minimal allocation buffer size / 6).
     */
    public static RequestBufferAllocator fromConf(Configuration conf, int handlers, Consumer<String> log) {
        if (!conf.getBoolean(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, RpcConstants.DEFAULT_ALLOCATOR_POOL_ENABLED)) {
            return new HeapRequestBuffers();
        }
        int size = conf.getInt(RpcConstants.ALLOCATOR_BUFFER_SIZE_KEY, RpcConstants.DEFAULT_ALLOCATOR_BUFFER_SIZE);
        if (size <= 0) {
            throw new ConfigurationException(RpcConstants.ALLOCATOR_BUFFER_SIZE_KEY + " must be positive, got " + size);
        }
        int count = conf.getInt(RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY, handlers * Math.max(1, TWO_MB / size) * 2);
        int min = conf.getInt(RpcConstants.ALLOCATOR_MIN_ALLOCATE_SIZE_KEY, size / 6);
        boolean presize = conf.getBoolean(RpcConstants.ALLOCATOR_PRESIZE_KEY, false);
        DirectBufferPool pool = new DirectBufferPool(size, count, min, presize, false, log);
        long maxDirect = maxDirectMemory();
        if (!presize && (long) count * size > maxDirect) {
            log.accept("request buffer pool may need " + ((long) count * size >> 20) + " MB of direct memory but the JVM allows "
                + (maxDirect >> 20) + " MB: requests beyond it fall back to the heap; raise -XX:MaxDirectMemorySize or lower "
                + RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY);
        }
        return pool;
    }

    /**
     * heaplab.rpc.cell.decoder = copying | zero-copy; default zero-copy when the pool is enabled (2.x),
     * copying otherwise (1.x).
     */
    public static CellDecoder cellDecoder(Configuration conf) {
        boolean pool = conf.getBoolean(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, RpcConstants.DEFAULT_ALLOCATOR_POOL_ENABLED);
        String v = conf.get(RpcConstants.CELL_DECODER_KEY, pool ? "zero-copy" : "copying");
        return switch (v) {
            case "copying" -> CopyingCellDecoder.INSTANCE;
            case "zero-copy" -> ZeroCopyCellDecoder.INSTANCE;
            default -> throw new ConfigurationException(RpcConstants.CELL_DECODER_KEY + " must be copying or zero-copy, got " + v);
        };
    }

    /** -XX:MaxDirectMemorySize, or the heap's maximum when it is not set (the JVM's default). */
    static long maxDirectMemory() {
        try {
            com.sun.management.HotSpotDiagnosticMXBean hs = java.lang.management.ManagementFactory
                .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            long v = Long.parseLong(hs.getVMOption("MaxDirectMemorySize").getValue());
            return v > 0 ? v : Runtime.getRuntime().maxMemory();
        } catch (RuntimeException e) {
            return Runtime.getRuntime().maxMemory();
        }
    }
}
