package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real region server's own endpoint (hbase.regionserver.info.port) over HTTP, and its port handling. */
@Timeout(120)
class RegionServerEndpointTest {
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    private static Configuration conf(Path root, String infoPort) {
        return new Configuration().set("hbase.rootdir", root.toString()).set(RegionServer.HOSTNAME_KEY, HOST)
            .set(RegionServer.PORT_KEY, "0").set("hbase.regionserver.handler.count", "4")
            .set(InfoServer.REGIONSERVER_PORT_KEY, infoPort);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theEndpointCountsTheCallsAndShowsTheMemstoreAndCache(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, "0"));
        String info = server.info().address();
        try (Connection c = Connection.open(HOST, server.port())) {
            assertTrue(info.startsWith(HOST + ":") && server.info().port() > 0, info);
            c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), new byte[0][]);
            Table t = c.getTable("T");
            for (int i = 0; i < 20; i++) {
                t.put(new Put(b("row" + i)).addColumn(F, Q, b("value" + i)));
            }
            for (int i = 0; i < 7; i++) {
                assertFalse(t.get(b("row" + i)).isEmpty());
            }
            String json = InfoServerTest.get(info, "/metrics").body();
            assertTrue(json.startsWith("{\"format\": 1, \"role\": \"regionserver\", \"server\": \"" + HOST + ":"
                + server.port() + "\""), json);
            assertEquals(20, EndpointMetricsTest.num(json, "PUT", "count"));
            assertEquals(7, EndpointMetricsTest.num(json, "GET", "count"));
            assertEquals(0, EndpointMetricsTest.num(json, "GET", "errors"));
            assertEquals(4, EndpointMetricsTest.num(json, "rpc", "handlers"));
            assertEquals(20, EndpointMetricsTest.num(json, "memstore", "cells"));
            assertTrue(json.contains("\"block_cache\": {\"caches\": ["), json);
            assertTrue(json.contains("\"memory\": {\"heap_used\": "), json);
            assertEquals(404, InfoServerTest.get(info, "/").status());
        } finally {
            server.stop();
        }
        assertThrows(IOException.class, () -> InfoServerTest.get(info, "/metrics"), "stop closes the endpoint");
    }

    @Test
    void aTakenInfoPortFailsStartUpNamingTheKeyAndLeavesNothingBound(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(HOST, 0));
            Configuration conf = conf(root, Integer.toString(taken.getLocalPort()));
            InfoServer.PortInUseException e = assertThrows(InfoServer.PortInUseException.class,
                () -> RegionServer.start(conf));
            assertTrue(e.getMessage().contains(InfoServer.REGIONSERVER_PORT_KEY), e.getMessage());
        }
        // the failed start released everything: the same rootdir starts again (WAL and regions reopened)
        RegionServer again = RegionServer.start(conf(root, "-1"));
        try (Socket s = new Socket(HOST, again.port())) {
            assertEquals("", again.info().address());
        } finally {
            again.stop();
        }
    }
}
