package org.heaplab.server.master;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.server.ClusterKeys;
import org.heaplab.server.RegionServer;

/** Configurations and waits for in-JVM clusters on loopback (fast heartbeats so tests see state changes quickly). */
final class MiniCluster {
    static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    static final long HEARTBEAT_MS = 200;
    static final long TIMEOUT_MS = 1500;

    private MiniCluster() {
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static Configuration masterConf(Path root, int port, long timeoutMs) {
        return new Configuration().set("hbase.rootdir", root.toString()).set(ClusterKeys.MASTER_HOSTNAME, HOST)
            .set(ClusterKeys.MASTER_PORT, String.valueOf(port)).set(ClusterKeys.MASTER_HANDLER_COUNT, "8")
            .set(ClusterKeys.MSG_INTERVAL, String.valueOf(HEARTBEAT_MS))
            .set(ClusterKeys.REGIONSERVER_TIMEOUT, String.valueOf(timeoutMs))
            .set(org.heaplab.server.InfoServer.MASTER_PORT_KEY, "0"); // any free port
    }

    static Configuration serverConf(Path root, int port, String master) {
        return new Configuration().set("hbase.rootdir", root.toString()).set(RegionServer.HOSTNAME_KEY, HOST)
            .set(RegionServer.PORT_KEY, String.valueOf(port)).set("hbase.regionserver.handler.count", "4")
            .set("hfile.block.cache.size", "0.05").set("hbase.regionserver.global.memstore.size", "0.1")
            .set(ClusterKeys.DISTRIBUTED, "true").set(ClusterKeys.MASTERS, master)
            .set(ClusterKeys.MSG_INTERVAL, String.valueOf(HEARTBEAT_MS))
            .set(org.heaplab.server.InfoServer.REGIONSERVER_PORT_KEY, "0");
    }

    /** The master's CLUSTER_STATUS JSON. */
    static String status(String master) throws IOException {
        int colon = master.lastIndexOf(':');
        try (RpcConnection c = RpcConnection.open(master.substring(0, colon), Integer.parseInt(master.substring(colon + 1)),
            2000, 10_000)) {
            return c.call(Method.CLUSTER_STATUS, new byte[0], java.util.List.of()).paramReader().readString();
        }
    }

    /** True when the status lists {@code server} with online = {@code online}. */
    static boolean shows(String status, String server, boolean online) {
        return status.contains("{\"server\": \"" + server + "\", \"online\": " + online + ",");
    }

    /** The start code the status shows for {@code server}. */
    static long startCode(String status, String server) {
        int i = status.indexOf("{\"server\": \"" + server + "\"");
        int s = status.indexOf("\"start_code\": ", i) + "\"start_code\": ".length();
        int e = status.indexOf(',', s);
        return Long.parseLong(status.substring(s, e));
    }

    /** Waits up to 20 s for {@code condition}, failing with {@code what} and the last status. */
    static void await(String what, String master, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                String s;
                try {
                    s = status(master);
                } catch (IOException e) {
                    s = e.toString();
                }
                fail("timed out waiting for " + what + "; cluster status: " + s);
            }
            Thread.sleep(50);
        }
    }

    /** A condition over the status; false while the master does not answer. */
    static BooleanSupplier statusShows(String master, java.util.function.Predicate<String> p) {
        return () -> {
            try {
                return p.test(status(master));
            } catch (IOException e) {
                return false;
            }
        };
    }
}
