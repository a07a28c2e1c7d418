package org.heaplab.server.master;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.conf.ClientKeys;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.EngineEnv;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.util.JsonWriter;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcServer;
import org.heaplab.rpc.server.RpcServers;
import org.heaplab.server.ClusterKeys;
import org.heaplab.server.GcEventRecorder;
import org.heaplab.server.InfoServer;
import org.heaplab.server.RegionServer.PortInUseException;
import org.heaplab.server.ServerLog;
import org.heaplab.server.ServerMain;
import org.heaplab.server.ServerMetrics;
import org.heaplab.server.StopOnce;

/**
 * The master process ({@code bin/engine master}, HBase's HMaster in miniature): binds
 * hbase.master.hostname:hbase.master.port with the RPC server hbase.rpc.server.impl names, loads its tables
 * and assignments from {@code <hbase.rootdir>/master/}, and answers region servers (REGISTER, HEARTBEAT) and
 * clients (LOCATE, CLUSTER_STATUS, table methods). A chore marks a region server down when its heartbeats
 * stop for heaplab.master.regionserver.timeout. It holds no data and reassigns nothing (engine/docs/cluster.md).
 *
 * <p>Thread safety: start and stop may race from different threads; stop is idempotent.
 */
public final class Master {
    private final RpcServer rpc;
    private final RegionServerClients clients;
    private final ScheduledExecutorService chore;
    private final InfoServer info;
    private final String address;
    private final StopOnce stopOnce = new StopOnce();

    private Master(RpcServer rpc, RegionServerClients clients, ScheduledExecutorService chore, InfoServer info,
                   String address) {
        this.rpc = rpc;
        this.clients = clients;
        this.chore = chore;
        this.info = info;
        this.address = address;
    }

    /**
     * Binds, loads the tables and starts serving.
     *
     * @throws PortInUseException     when the port is taken (nothing has been read)
     * @throws ConfigurationException for a bad value, naming the key
     */
    public static Master start(Configuration conf) throws IOException {
        long msgInterval = ClusterKeys.positiveMs(conf, ClusterKeys.MSG_INTERVAL, ClusterKeys.DEFAULT_MSG_INTERVAL_MS);
        long timeout = ClusterKeys.positiveMs(conf, ClusterKeys.REGIONSERVER_TIMEOUT,
            ClusterKeys.DEFAULT_REGIONSERVER_TIMEOUT_MS);
        if (timeout <= msgInterval) {
            throw new ConfigurationException(ClusterKeys.REGIONSERVER_TIMEOUT + " (" + timeout + " ms) must be larger "
                + "than " + ClusterKeys.MSG_INTERVAL + " (" + msgInterval + " ms), or every server is marked down "
                + "between two heartbeats");
        }
        int handlers = conf.getInt(ClusterKeys.MASTER_HANDLER_COUNT, ClusterKeys.DEFAULT_MASTER_HANDLER_COUNT);
        if (handlers <= 0) {
            throw new ConfigurationException(ClusterKeys.MASTER_HANDLER_COUNT + " must be positive, got " + handlers);
        }
        Path masterDir = rootDir(conf).resolve("master");
        String host = conf.get(ClusterKeys.MASTER_HOSTNAME, "localhost");
        int port = conf.getInt(ClusterKeys.MASTER_PORT, ClusterKeys.DEFAULT_MASTER_PORT);

        // the master's own RPC configuration: the region server's keys with the master's handler count
        Configuration rpcConf = new Configuration();
        conf.asMap().forEach(rpcConf::set);
        rpcConf.set(RpcConstants.HANDLER_COUNT_KEY, String.valueOf(handlers));

        ServerRegistry registry = new ServerRegistry(timeout, System::currentTimeMillis);
        MasterRpcService service = new MasterRpcService(registry, msgInterval);
        RpcServer rpc = RpcServers.fromConf(new InetSocketAddress(host, port), service, rpcConf, ServerLog::warn);
        ServerLog.info("rpc server: " + rpc.describe() + " (" + RpcServers.IMPL_KEY + ") with " + rpc.handlerCount()
            + " handlers (" + ClusterKeys.MASTER_HANDLER_COUNT + ")");
        try {
            rpc.start();
        } catch (BindException e) {
            throw new PortInUseException(host, port, e.getMessage(), ClusterKeys.MASTER_PORT);
        }
        String address = host + ":" + rpc.port();
        service.bound(address, rpc.name(), rpc.handlerCount());
        RegionServerClients clients = new RegionServerClients(conf.getLong(ClientKeys.RPC_TIMEOUT, 600_000));
        TableManager tables;
        try {
            tables = new TableManager(new MasterStore(masterDir), registry, clients);
        } catch (IOException | RuntimeException e) {
            rpc.stop();
            clients.close();
            throw e;
        }
        ServerLog.info("tables: " + tables.tableCount() + " (" + tables.regionCount() + " regions) from " + masterDir
            + "; region servers register again");
        ServerLog.info("region servers: heartbeat every " + msgInterval + " ms (" + ClusterKeys.MSG_INTERVAL
            + "), marked down after " + timeout + " ms without one (" + ClusterKeys.REGIONSERVER_TIMEOUT + ")");
        InfoServer info;
        try {
            TableManager t = tables;
            info = InfoServer.start(conf, InfoServer.MASTER_PORT_KEY, host, () -> {
                List<String> online = registry.onlineServers();
                return ServerMetrics.endpoint("master", address, rpc).put("cluster", new JsonWriter()
                    .put("servers_online", online.size()).put("servers_down", registry.loads().size() - online.size())
                    .put("tables", t.tableCount()).put("regions", t.regionCount())).toString();
            });
        } catch (IOException | RuntimeException e) {
            rpc.stop();
            clients.close();
            throw e;
        }
        ScheduledExecutorService chore = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "master-server-expiry");
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(50, Math.min(1000, timeout / 4));
        chore.scheduleWithFixedDelay(registry::expire, period, period, TimeUnit.MILLISECONDS);
        service.online(tables);
        return new Master(rpc, clients, chore, info, address);
    }

    /** hbase.rootdir as a local path (a file:// or file: prefix is accepted). */
    private static Path rootDir(Configuration conf) {
        String dir = conf.get(StorageKeys.ROOT_DIR, StorageKeys.DEFAULT_ROOT_DIR).trim();
        if (dir.startsWith("file://")) {
            dir = dir.substring("file://".length());
        } else if (dir.startsWith("file:")) {
            dir = dir.substring("file:".length());
        }
        if (dir.isEmpty()) {
            throw new ConfigurationException(StorageKeys.ROOT_DIR + " is empty");
        }
        return Path.of(dir);
    }

    public int port() {
        return rpc.port();
    }

    /** "host:port" of the master's RPC address (what region servers and clients put in hbase.masters). */
    public String address() {
        return address;
    }

    public RpcServer rpc() {
        return rpc;
    }

    /** The HTTP metrics endpoint (a no-op with address "" when hbase.master.info.port is -1 or unset). */
    public InfoServer info() {
        return info;
    }

    /** Stops serving; region servers keep retrying their heartbeats until a master answers again. Idempotent. */
    public void stop() {
        stopOnce.run(() -> {
            chore.shutdownNow();
            info.stop();
            rpc.stop();
            clients.close();
        });
    }

    public void awaitStop() throws InterruptedException {
        stopOnce.await();
    }

    /** {@code bin/engine master}: runs in the foreground until SIGTERM. */
    public static void main(String[] args) {
        EngineEnv env = EngineEnv.fromSystem();
        Configuration conf = ServerMain.loadConfigurationOrExit(env);
        // its own file: a master and a region server may share ENGINE_LOG_DIR on one host
        GcEventRecorder gc = ServerMain.recordGc(env.logDir().resolve("gc-events-master.jsonl"));
        ServerLog.info("starting master: conf " + env.describeSite() + ", data " + conf.get(EngineEnv.ROOTDIR_KEY)
            + "/master, pid " + ProcessHandle.current().pid());
        ServerMain.warnUnknownKeys(conf);
        Master master = ServerMain.startOrExit("master", () -> start(conf));
        ServerMain.stopOnShutdown("stopping the master", master::stop, gc);
        ServerLog.info("master serving on " + master.address() + " with " + master.rpc.handlerCount() + " handlers ("
            + master.rpc.name() + ")");
        ServerMain.await(master::awaitStop);
    }
}
