package org.heaplab.rpc.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.buffers.CopyingCellDecoder;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.buffers.HeapRequestBuffers;
import org.heaplab.rpc.buffers.HeapResponseEncoder;
import org.heaplab.rpc.buffers.PooledDirectResponseEncoder;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.buffers.ResponseEncoder;
import org.heaplab.rpc.buffers.ZeroCopyCellDecoder;
import org.heaplab.rpc.protocol.CellDecoder;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * The RPC path's memory, chosen once at start-up ({@link #fromConf}) and handed to whichever transport
 * runs ({@link RpcServers}): neither SimpleRpcServer nor NettyRpcServer reads these keys itself.
 *
 * <pre>
 *   hbase.server.allocator.pool.enabled   false (1.x)             true (2.x)
 *     requestBuffers                      HeapRequestBuffers      DirectBufferPool (.buffer.size, ...)
 *     responseEncoder                     HeapResponseEncoder     PooledDirectResponseEncoder, same pool
 *   heaplab.rpc.cell.decoder (default follows the pool)
 *     cellDecoder                         CopyingCellDecoder      ZeroCopyCellDecoder
 *   hbase.ipc.max.request.size            maxRequestSize: a larger frame is REQUEST_TOO_BIG
 *   heaplab.ipc.server.read.timeout       readTimeoutMs: a frame that stalls this long closes its connection
 * </pre>
 *
 * NettyRpcServer keeps its requests in Netty's own frames whatever the pool key says: it uses
 * {@link #requestBuffers} only through the response encoder (and says so in its start-up line).
 *
 * <p>Every value is checked here, each bad one failing with one line naming its key and value
 * ({@link ConfigurationException}), whether the record comes from the configuration or is built by hand
 * (tests).
 *
 * @param poolEnabled     hbase.server.allocator.pool.enabled: the pool serves requests and responses
 * @param requestBuffers  where SimpleRpcServer reads request bodies
 * @param cellDecoder     how a request's cells are decoded: copies (1.x) or views (2.x)
 * @param responseEncoder where an OK response is encoded: a heap byte[] (1.x) or pooled direct buffers (2.x)
 * @param maxRequestSize  the largest request frame body, in bytes
 * @param readTimeoutMs   how long a connection may stay silent in the middle of a frame
 */
public record RpcMemory(boolean poolEnabled, RequestBufferAllocator requestBuffers, CellDecoder cellDecoder,
                        ResponseEncoder responseEncoder, int maxRequestSize, long readTimeoutMs) {
    private static final int TWO_MB = 2 * 1024 * 1024;

    public RpcMemory {
        if (maxRequestSize < RpcConstants.MIN_REQUEST_BODY) {
            throw new ConfigurationException(RpcConstants.MAX_REQUEST_SIZE_KEY + " must be at least "
                + RpcConstants.MIN_REQUEST_BODY + " bytes, got " + maxRequestSize);
        }
        if (readTimeoutMs < 1) {
            throw new ConfigurationException(RpcConstants.READ_TIMEOUT_KEY + " must be at least 1 ms, got " + readTimeoutMs);
        }
    }

    /**
     * The memory engine-site.xml asks for: the request buffers and the response encoder of
     * hbase.server.allocator.pool.enabled (the pool with HBase's defaults: buffer 66560 bytes, max count
     * handlers x (2 MB / buffer size) x 2, minimal allocation buffer size / 6), the cell decoder, and the two
     * bounds. {@code log} gets a warning when the pool could outgrow the JVM's direct memory.
     *
     * @throws ConfigurationException one line naming the key and the value that is not valid
     */
    public static RpcMemory fromConf(Configuration conf, Consumer<String> log) {
        boolean pool = conf.getBoolean(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, RpcConstants.DEFAULT_ALLOCATOR_POOL_ENABLED);
        CellDecoder decoder = cellDecoder(conf, pool);
        int maxRequestSize = conf.getInt(RpcConstants.MAX_REQUEST_SIZE_KEY, RpcConstants.DEFAULT_MAX_REQUEST_SIZE);
        long readTimeoutMs = conf.getLong(RpcConstants.READ_TIMEOUT_KEY, RpcConstants.DEFAULT_READ_TIMEOUT_MS);
        if (!pool) {
            return new RpcMemory(false, new HeapRequestBuffers(), decoder, HeapResponseEncoder.INSTANCE, maxRequestSize,
                readTimeoutMs);
        }
        DirectBufferPool buffers = directBufferPool(conf, log);
        return new RpcMemory(true, buffers, decoder, new PooledDirectResponseEncoder(buffers), maxRequestSize, readTimeoutMs);
    }

    /** The read timeout in nanoseconds (what the transports compare with System.nanoTime()). */
    public long readTimeoutNanos() {
        return TimeUnit.MILLISECONDS.toNanos(readTimeoutMs);
    }

    /** heaplab.rpc.cell.decoder = copying | zero-copy; by default zero-copy with the pool (2.x), copying without (1.x). */
    private static CellDecoder cellDecoder(Configuration conf, boolean pool) {
        String v = conf.get(RpcConstants.CELL_DECODER_KEY, pool ? "zero-copy" : "copying");
        return switch (v) {
            case "copying" -> CopyingCellDecoder.INSTANCE;
            case "zero-copy" -> ZeroCopyCellDecoder.INSTANCE;
            default -> throw new ConfigurationException(RpcConstants.CELL_DECODER_KEY + " must be copying or zero-copy, got " + v);
        };
    }

    /** The pool of hbase.server.allocator.*; the pool checks its own sizes. */
    private static DirectBufferPool directBufferPool(Configuration conf, Consumer<String> log) {
        // a bad handler count is the scheduler's error to report, not a negative default count here
        int handlers = Math.max(0, conf.getInt(RpcConstants.HANDLER_COUNT_KEY, RpcConstants.DEFAULT_HANDLER_COUNT));
        int size = conf.getInt(RpcConstants.ALLOCATOR_BUFFER_SIZE_KEY, RpcConstants.DEFAULT_ALLOCATOR_BUFFER_SIZE);
        // a size below the pool's minimum has no default count: the pool refuses the size, naming its key
        int defaultCount = size < 1 ? 0 : handlers * Math.max(1, TWO_MB / size) * 2;
        int count = conf.getInt(RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY, defaultCount);
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

    /** -XX:MaxDirectMemorySize, or the heap's maximum when it is not set (the JVM's default). */
    private static long maxDirectMemory() {
        try {
            HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            long v = Long.parseLong(hs.getVMOption("MaxDirectMemorySize").getValue());
            return v > 0 ? v : Runtime.getRuntime().maxMemory();
        } catch (RuntimeException e) {
            return Runtime.getRuntime().maxMemory();
        }
    }
}
