package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.server.RpcServer;
import org.heaplab.rpc.server.RpcServers;
import org.heaplab.rpc.server.RpcService;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The endpoint's process groups (rpc, memory, gc) over HTTP, for every RPC server implementation: the
 * per-method counts and errors follow the calls a real client made.
 */
@Timeout(60)
class EndpointMetricsTest {
    static List<String> implementations() {
        return RpcServers.implementations();
    }

    /** Answers STATUS; fails TABLE_EXISTS (an error the client sees and the metrics count). */
    private static final RpcService SERVICE = request -> {
        if (request.method() == Method.TABLE_EXISTS) {
            throw new IOException("no tables here");
        }
        return RpcService.Reply.EMPTY;
    };

    /** The number after {@code "key": } in the object that starts at {@code "group": {} (first match). */
    static long num(String json, String group, String key) {
        int at = json.indexOf("\"" + group + "\": {");
        assertTrue(at >= 0, "group " + group + " in " + json);
        Matcher m = Pattern.compile("\"" + key + "\": (-?\\d+)").matcher(json);
        assertTrue(m.find(at), group + "." + key + " in " + json);
        return Long.parseLong(m.group(1));
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void rpcMemoryAndGcGroupsFollowTheCalls(String impl) throws Exception {
        Configuration conf = new Configuration().set("hbase.regionserver.handler.count", "3")
            .set(InfoServer.MASTER_PORT_KEY, "0");
        RpcServer rpc = RpcServers.create(impl, new InetSocketAddress(InfoServerTest.HOST, 0), SERVICE, conf, ServerLog::warn);
        rpc.start();
        String server = InfoServerTest.HOST + ":" + rpc.port();
        try (InfoServer info = InfoServer.start(conf, InfoServer.MASTER_PORT_KEY, InfoServerTest.HOST,
                () -> ServerMetrics.endpoint("master", server, rpc).toString());
             RpcConnection c = RpcConnection.open(InfoServerTest.HOST, rpc.port(), 10_000, 30_000)) {
            for (int i = 0; i < 7; i++) {
                c.call(Method.STATUS, new byte[0], List.of());
            }
            for (int i = 0; i < 2; i++) {
                assertThrows(RemoteException.class, () -> c.call(Method.TABLE_EXISTS, new byte[0], List.of()));
            }
            System.gc();
            String json = InfoServerTest.get(info.address(), "/metrics").body();
            assertTrue(json.startsWith("{\"format\": 1, \"role\": \"master\", \"server\": \"" + server + "\", \"uptime_ms\": "), json);
            assertTrue(json.contains("\"rpc\": {\"impl\": \"" + rpc.name() + "\", \"handlers\": 3, \"queues\": [{\"kind\": "), json);
            assertEquals(7, num(json, "STATUS", "count"));
            assertEquals(0, num(json, "STATUS", "errors"));
            assertEquals(2, num(json, "TABLE_EXISTS", "count"));
            assertEquals(2, num(json, "TABLE_EXISTS", "errors"));
            assertTrue(!json.contains("\"GET\": {"), "methods never called are left out: " + json);
            Matcher dispatched = Pattern.compile("\"dispatched\": (\\d+), \"rejected\": 0").matcher(json);
            long calls = 0;
            while (dispatched.find()) {
                calls += Long.parseLong(dispatched.group(1));
            }
            assertEquals(9, calls, "every call went through a queue: " + json);
            for (String field : new String[] {"mean_ms", "p50_ms", "p99_ms", "max_ms", "queue_mean_ms"}) {
                assertTrue(Pattern.compile("\"STATUS\": \\{[^}]*\"" + field + "\": [0-9.]+").matcher(json).find(), field + json);
            }
            assertTrue(num(json, "memory", "heap_used") > 0);
            assertTrue(num(json, "memory", "heap_max") >= num(json, "memory", "heap_used"));
            assertTrue(num(json, "memory", "direct_max") > 0);
            num(json, "memory", "direct_used");
            assertTrue(json.contains("\"gc\": {\"pauses\": "), json);
            assertTrue(json.contains("\"collectors\": [{\"name\": "), json);
        } finally {
            rpc.stop();
        }
    }
}
