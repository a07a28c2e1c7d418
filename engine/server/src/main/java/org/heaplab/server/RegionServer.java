package org.heaplab.server;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.rpc.BlockingRpcServer;
import org.heaplab.rpc.RpcServer;

/**
 * The region server process: binds hbase.regionserver.hostname:hbase.regionserver.port, opens
 * {@link OnlineRegions} (replaying the WAL) and serves RPCs until stopped.
 *
 * <p>Start-up order: the port is bound first (a taken port fails fast, before any data is touched),
 * then the regions open; calls that arrive meanwhile are answered with an error, so the first
 * successful STATUS call means "ready". Stopping (SIGTERM via the shutdown hook, or {@link #stop()})
 * stops accepting, lets in-flight calls finish and answer, then closes OnlineRegions, which flushes
 * the memstores and closes the WAL.
 *
 * <p>Thread safety: start and stop may race from different threads; stop is idempotent.
 */
public final class RegionServer {
    public static final String HOSTNAME_KEY = "hbase.regionserver.hostname";
    public static final String PORT_KEY = "hbase.regionserver.port";
    public static final int DEFAULT_PORT = 16020;

    private final RpcServer rpc;
    private final OnlineRegions regions;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean stopping;

    private final BlockingRpcServer blockingRpc;

    private final WritePath writePath;

    private RegionServer(RpcServer rpc, OnlineRegions regions, BlockingRpcServer blockingRpc, WritePath writePath) {
        this.writePath = writePath;
        this.blockingRpc = blockingRpc;
        this.rpc = rpc;
        this.regions = regions;
    }

    /**
     * Binds, opens the regions and starts serving.
     *
     * @throws PortInUseException when the port is taken (nothing has been opened)
     */
    public static RegionServer start(Configuration conf) throws IOException {
        WritePath.checkConf(conf); // a bad value fails before the port is bound or the WAL replayed
        org.heaplab.core.cache.ReadPath readPath = org.heaplab.core.cache.ReadPaths.fromConf(conf); // likewise
        String host = conf.get(HOSTNAME_KEY, "localhost");
        int port = conf.getInt(PORT_KEY, DEFAULT_PORT);
        RegionRpcService service = new RegionRpcService(host + ":" + port, "BlockingRpcServer",
            conf.getInt(org.heaplab.rpc.RpcConstants.HANDLER_COUNT_KEY, org.heaplab.rpc.RpcConstants.DEFAULT_HANDLER_COUNT));
        BlockingRpcServer rpc = new BlockingRpcServer(new InetSocketAddress(host, port), service, conf, ServerLog::warn);
        ServerLog.info("request buffers: " + rpc.allocator().describe());
        ServerLog.info("cell decoding: " + rpc.cellDecoder().describe());
        ServerLog.info("responses: " + rpc.responseEncoder().describe());
        ServerLog.info("read path: " + readPath.name() + " (" + org.heaplab.core.cache.ReadPaths.KEY + ")");
        try {
            rpc.start();
        } catch (BindException e) {
            throw new PortInUseException(host, port, e.getMessage());
        }
        service.bound(host + ":" + rpc.port());
        OnlineRegions regions;
        try {
            regions = OnlineRegions.open(conf);
        } catch (IOException | RuntimeException e) {
            rpc.stop();
            throw e;
        }
        ServerLog.info("memstore cell storage: " + regions.cellStorageDescription());
        ServerLog.info("mvcc: " + regions.mvccDescription());
        WritePath writePath;
        try {
            writePath = WritePath.fromConf(conf, regions, rpc.handlerCount());
        } catch (RuntimeException e) {
            rpc.stop();
            regions.close();
            throw e;
        }
        ServerLog.info("write path: " + writePath.describe());
        service.online(regions, writePath, rpc.allocator());
        return new RegionServer(rpc, regions, rpc, writePath);
    }

    public int port() {
        return rpc.port();
    }

    /** The RPC server's request-buffer allocator (heap vs pooled byte counters, leak checks in tests). */
    public org.heaplab.rpc.RequestBufferAllocator requestBuffers() {
        return blockingRpc.allocator();
    }

    public OnlineRegions regions() {
        return regions;
    }

    /** Stops serving and closes the regions (flushing memstores). Idempotent; returns when done. */
    public void stop() {
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
        }
        try {
            rpc.stop();
            org.heaplab.rpc.RequestBufferAllocator buffers = blockingRpc.allocator();
            ServerLog.info(String.format("request buffers at stop: %d bytes from the pool, %d bytes from the heap "
                + "(heap ratio %.3f), %d outstanding", buffers.poolAllocationBytes(), buffers.heapAllocationBytes(),
                buffers.heapAllocationRatio(), buffers.outstanding()));
            writePath.close();
            regions.close();
        } catch (IOException | RuntimeException e) {
            ServerLog.error("error while closing the regions: " + e);
        } finally {
            stopped.countDown();
        }
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** The port is taken: one line naming the port and the key to change. */
    public static final class PortInUseException extends IOException {
        PortInUseException(String host, int port, String cause) {
            super("port " + port + " on " + host + " is already in use (" + cause + "); stop the process holding it or set "
                + PORT_KEY + " in engine-site.xml");
        }
    }

    /** {@code bin/engine regionserver}: runs in the foreground until SIGTERM. */
    public static void main(String[] args) {
        EngineEnv env = EngineEnv.fromSystem();
        Configuration conf;
        try {
            conf = env.loadConfiguration();
        } catch (ConfigurationException e) {
            System.err.println("ERROR: " + e.getMessage());
            System.exit(1);
            return;
        }
        GcEventRecorder gc = null;
        try {
            gc = GcEventRecorder.start(Path.of(conf.get(GcEventRecorder.FILE_KEY)));
        } catch (IOException e) {
            ServerLog.warn("GC events will not be recorded: " + e.getMessage());
        }
        ServerLog.info("starting region server: conf " + env.siteFile() + ", data " + conf.get(EngineEnv.ROOTDIR_KEY)
            + ", pid " + ProcessHandle.current().pid());
        RegionServer server;
        try {
            server = start(conf);
        } catch (PortInUseException | ConfigurationException e) {
            System.err.println("ERROR: " + e.getMessage());
            System.exit(1);
            return;
        } catch (OutOfMemoryError e) { // memory asked at start-up (caches) that the JVM does not have
            System.err.println("ERROR: cannot start the region server: out of memory (" + e.getMessage() + "); lower "
                + "hbase.bucketcache.size or hfile.block.cache.size, or raise -Xmx / -XX:MaxDirectMemorySize in jvm.options");
            System.exit(1);
            return;
        } catch (IOException | RuntimeException e) {
            ServerLog.error("cannot start the region server: " + e);
            System.err.println("ERROR: cannot start the region server: " + e.getMessage());
            System.exit(1);
            return;
        }
        GcEventRecorder gcRecorder = gc;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ServerLog.info("stopping: finishing in-flight calls, flushing memstores, closing the WAL");
            server.stop();
            if (gcRecorder != null) {
                try {
                    gcRecorder.close();
                } catch (IOException ignored) {
                    // best effort at exit
                }
            }
            ServerLog.info("stopped");
        }, "shutdown"));
        ServerLog.info("region server serving on " + conf.get(HOSTNAME_KEY, "localhost") + ":" + server.port()
            + " with " + conf.getInt(org.heaplab.rpc.RpcConstants.HANDLER_COUNT_KEY, 30) + " handlers (BlockingRpcServer)");
        try {
            server.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
