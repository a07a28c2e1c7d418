package org.heaplab.server;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.cache.ReadPaths;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.EngineEnv;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.util.CrashPoints;
import org.heaplab.core.wal.WalFailure;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcServer;
import org.heaplab.rpc.server.RpcServers;

/**
 * The region server process: binds hbase.regionserver.hostname:hbase.regionserver.port with the RPC server
 * hbase.rpc.server.impl names, opens {@link OnlineRegions} (replaying the WAL) and serves RPCs until stopped.
 * In cluster mode (hbase.cluster.distributed=true) it also registers with the master of hbase.masters and
 * heartbeats ({@link MasterReporter}); the master then sends it OPEN_REGIONS for the regions it assigns here.
 * Standalone (the default) it answers CREATE_TABLE, LOCATE and CLUSTER_STATUS itself.
 *
 * <p>Start-up order: the configuration is checked, the RPC and HTTP ports are bound (a taken port fails fast,
 * before any data is touched), then the regions open; calls that arrive meanwhile are answered with an error, so the
 * first successful STATUS call means "ready"; only then does the server register with the master. Stopping
 * (SIGTERM via the shutdown hook, or {@link #stop()}) stops heartbeating, stops accepting, lets in-flight
 * calls finish and answer, then closes OnlineRegions, which flushes the memstores and closes the WAL.
 *
 * <p>Abort (HBase's, on a failed WAL sync): when the WAL fails ({@link OnlineRegions#walFailure}) every waiting and
 * later put fails; the server logs one ERROR line naming the WAL file and the cause, stops serving without
 * flushing (the WAL, replayed at the next start, is what is durable) and {@code main} exits with status 1.
 *
 * <p>Thread safety: start and stop may race from different threads; stop is idempotent.
 */
public final class RegionServer {
    public static final String HOSTNAME_KEY = "hbase.regionserver.hostname";
    public static final String PORT_KEY = "hbase.regionserver.port";
    public static final int DEFAULT_PORT = 16020;

    private final RpcServer rpc;
    private final OnlineRegions regions;
    private final WritePath writePath;
    private final MasterReporter reporter;
    private final InfoServer info;
    private final StopOnce stopOnce = new StopOnce();
    private volatile String abortReason;

    private RegionServer(RpcServer rpc, OnlineRegions regions, WritePath writePath, MasterReporter reporter,
                         InfoServer info) {
        this.info = info;
        this.rpc = rpc;
        this.regions = regions;
        this.writePath = writePath;
        this.reporter = reporter;
    }

    /**
     * Binds, opens the regions and starts serving (and, in cluster mode, reporting to the master).
     *
     * @throws PortInUseException when the port is taken (nothing has been opened)
     * @throws ConfigurationException for a bad value, naming the key (nothing has been opened)
     */
    public static RegionServer start(Configuration conf) throws IOException {
        WritePath.checkConf(conf); // a bad value fails before the port is bound or the WAL replayed
        ReadPath readPath = ReadPaths.fromConf(conf); // likewise
        boolean distributed = conf.getBoolean(ClusterKeys.DISTRIBUTED, false);
        List<String> masters = distributed ? ClusterKeys.masters(conf) : List.of();
        long msgInterval = ClusterKeys.positiveMs(conf, ClusterKeys.MSG_INTERVAL, ClusterKeys.DEFAULT_MSG_INTERVAL_MS);
        String host = conf.get(HOSTNAME_KEY, "localhost");
        int port = conf.getInt(PORT_KEY, DEFAULT_PORT);
        RegionRpcService service = new RegionRpcService(host + ":" + port, "",
            conf.getInt(RpcConstants.HANDLER_COUNT_KEY, RpcConstants.DEFAULT_HANDLER_COUNT));
        RpcServer rpc = RpcServers.fromConf(new InetSocketAddress(host, port), service, conf, ServerLog::warn);
        ServerLog.info("rpc server: " + rpc.describe() + " (" + RpcServers.IMPL_KEY + ") with " + rpc.handlerCount()
            + " handlers");
        ServerLog.info("request buffers: " + rpc.allocator().describe());
        ServerLog.info("cell decoding: " + rpc.cellDecoder().describe());
        ServerLog.info("responses: " + rpc.responseEncoder().describe());
        ServerLog.info("read path: " + readPath.name() + " (" + ReadPaths.KEY + ")");
        try {
            rpc.start();
        } catch (BindException e) {
            throw new PortInUseException(host, port, e.getMessage());
        }
        String address = host + ":" + rpc.port();
        service.bound(address, rpc.name());
        if (distributed) { // before any call is answered: CREATE_TABLE and LOCATE belong to the master
            service.clusterMode(String.join(",", masters));
        }
        InfoServer info; // bound before any data is touched too; answers 500 until the regions are open
        try {
            info = InfoServer.start(conf, InfoServer.REGIONSERVER_PORT_KEY, host, () -> {
                ServerMetrics metrics = service.metrics();
                if (metrics == null) {
                    throw new IllegalStateException("the region server is still opening its regions");
                }
                return metrics.endpointJson(address, rpc);
            });
        } catch (IOException | RuntimeException e) {
            rpc.stop();
            throw e;
        }
        service.infoAddress(info.address());
        OnlineRegions regions;
        try {
            regions = OnlineRegions.open(conf);
        } catch (IOException | RuntimeException e) {
            info.stop();
            rpc.stop();
            throw e;
        }
        ServerLog.info("memstore cell storage: " + regions.stats().cellStorageDescription());
        ServerLog.info("block cache: " + regions.stats().blockCacheDescription());
        ServerLog.info("mvcc: " + regions.stats().mvccDescription());
        ServerLog.info("read path: " + regions.stats().readPathDescription());
        WritePath writePath;
        try {
            writePath = WritePath.fromConf(conf, regions, rpc.handlerCount());
        } catch (RuntimeException e) {
            info.stop();
            rpc.stop();
            regions.close();
            throw e;
        }
        ServerLog.info("write path: " + writePath.describe());
        service.online(regions, writePath, rpc.allocator());
        service.metrics().rpcServer(rpc); // the METRICS report carries the rpc group (lab 05's per-step counters)
        MasterReporter reporter = null;
        if (distributed) {
            ServerLog.info("cluster mode (" + ClusterKeys.DISTRIBUTED + "=true): registering with the master at "
                + String.join(",", masters) + " (" + ClusterKeys.MASTERS + ")");
            reporter = new MasterReporter(masters, address, service, info.address(), msgInterval);
            reporter.start();
        } else {
            ServerLog.info("standalone (" + ClusterKeys.DISTRIBUTED + "=false): this server holds every region");
            String configured = conf.get(ClusterKeys.MASTERS);
            if (configured != null && !configured.isBlank()) { // clients would ask a master this server never joins
                ServerLog.warn(ClusterKeys.MASTERS + "=" + configured + " is set but " + ClusterKeys.DISTRIBUTED
                    + "=false: this server does not register with a master; set it to true for cluster mode");
            }
        }
        RegionServer server = new RegionServer(rpc, regions, writePath, reporter, info);
        regions.walFailure().thenAccept(server::abort);
        return server;
    }

    public int port() {
        return rpc.port();
    }

    /** The RPC server's request-buffer allocator (heap vs pooled byte counters, leak checks in tests). */
    public RequestBufferAllocator requestBuffers() {
        return rpc.allocator();
    }

    /** The HTTP metrics endpoint (a no-op with address "" when hbase.regionserver.info.port is -1 or unset). */
    public InfoServer info() {
        return info;
    }

    /** The RPC server (its name, scheduler and metrics). */
    public RpcServer rpc() {
        return rpc;
    }

    public OnlineRegions regions() {
        return regions;
    }

    /** Stops heartbeating, stops serving and closes the regions (flushing memstores). Idempotent; returns when done. */
    public void stop() {
        stopOnce.run(this::close);
    }

    private void close() {
        try {
            if (reporter != null) {
                reporter.close();
            }
            info.stop();
            rpc.stop();
            RequestBufferAllocator buffers = rpc.allocator();
            ServerLog.info(String.format("request buffers at stop: %d bytes from the pool, %d bytes from the heap "
                + "(heap ratio %.3f), %d outstanding", buffers.poolAllocationBytes(), buffers.heapAllocationBytes(),
                buffers.heapAllocationRatio(), buffers.outstanding()));
            writePath.close();
            regions.close();
        } catch (IOException | RuntimeException e) {
            ServerLog.error("error while closing the regions: " + e);
        }
    }

    public void awaitStop() throws InterruptedException {
        stopOnce.await();
    }

    /** Why the server aborted, or null (it runs, or stopped cleanly). */
    public String abortReason() {
        return abortReason;
    }

    /**
     * On the WAL's failure (called on the WAL thread that met it, so the stop runs on a thread of its own: it
     * waits for the WAL's threads): logs why, then stops serving; queued calls are answered with errors.
     */
    private void abort(WalFailure failure) {
        abortReason = failure.describe();
        ServerLog.error("aborting the region server: " + abortReason + "; no write is acknowledged any more, "
            + "restart the server to replay the WAL");
        Thread stopper = new Thread(() -> stopOnce.run(this::closeAborted), "abort");
        stopper.start();
    }

    /** Stops serving like {@link #close}, but flushes nothing: the failed WAL stays for the next start's replay. */
    private void closeAborted() {
        try {
            if (reporter != null) {
                reporter.close();
            }
            info.stop();
            rpc.stop();
            writePath.close();
        } catch (RuntimeException e) {
            ServerLog.error("error while aborting: " + e);
        } finally {
            regions.abort();
        }
    }

    /** The port is taken: one line naming the port and the key to change. */
    public static final class PortInUseException extends IOException {
        PortInUseException(String host, int port, String cause) {
            this(host, port, cause, PORT_KEY);
        }

        /** For any server process: {@code key} is the port's configuration key. */
        public PortInUseException(String host, int port, String cause, String key) {
            super("port " + port + " on " + host + " is already in use (" + cause + "); stop the process holding it or set "
                + key + " in engine-site.xml");
        }
    }

    /** {@code bin/engine regionserver}: runs in the foreground until SIGTERM. */
    public static void main(String[] args) {
        EngineEnv env = EngineEnv.fromSystem();
        Configuration conf = ServerMain.loadConfigurationOrExit(env);
        GcEventRecorder gc = ServerMain.recordGc(Path.of(conf.get(GcEventRecorder.FILE_KEY)));
        ServerLog.info("starting region server: conf " + env.describeSite() + ", data " + conf.get(EngineEnv.ROOTDIR_KEY)
            + ", pid " + ProcessHandle.current().pid());
        ServerMain.warnUnknownKeys(conf);
        DiskFull.watch(Path.of(conf.get(EngineEnv.ROOTDIR_KEY))); // a full disk: one line with its free space
        RegionServer server;
        try {
            server = ServerMain.startOrExit("region server", () -> start(conf));
        } catch (OutOfMemoryError e) { // memory asked at start-up (caches) that the JVM does not have
            ServerMain.exit("cannot start the region server: out of memory (" + e.getMessage() + "); lower "
                + "hbase.bucketcache.size or hfile.block.cache.size, or raise -Xmx / -XX:MaxDirectMemorySize in jvm.options");
            return;
        }
        ServerMain.stopOnShutdown("stopping: finishing in-flight calls, flushing memstores, closing the WAL", server::stop, gc);
        ServerLog.info("region server serving on " + conf.get(HOSTNAME_KEY, "localhost") + ":" + server.port()
            + " with " + server.rpc.handlerCount() + " handlers (" + server.rpc.name() + ")");
        CrashPoints.arm(); // a no-op unless a crash test chose a point (heaplab.test.crash.at)
        ServerMain.await(server::awaitStop);
        if (server.abortReason() != null) {
            ServerMain.exitAborted(gc);
        }
    }
}
