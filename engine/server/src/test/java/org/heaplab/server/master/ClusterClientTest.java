package org.heaplab.server.master;

import static org.heaplab.server.master.MiniCluster.HOST;
import static org.heaplab.server.master.MiniCluster.await;
import static org.heaplab.server.master.MiniCluster.shows;
import static org.heaplab.server.master.MiniCluster.statusShows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.heaplab.client.Admin;
import org.heaplab.client.Connection;
import org.heaplab.client.Delete;
import org.heaplab.client.Get;
import org.heaplab.client.Put;
import org.heaplab.client.Result;
import org.heaplab.client.ResultScanner;
import org.heaplab.client.Scan;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.server.ClusterKeys;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client library (org.heaplab.client, which locates through the master of hbase.masters) against an
 * in-JVM master and three region servers: DDL through the master, batch puts and multi-gets split over the
 * servers, a scan over every region of all three servers (so it crosses from server to server), increment
 * and delete at the row's server.
 */
@Timeout(60)
class ClusterClientTest {
    static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theClientLocatesAndWorksAcrossThreeServers(@TempDir Path root) throws Exception {
        Master master = Master.start(MiniCluster.masterConf(root.resolve("master"), MiniCluster.freePort(),
            MiniCluster.TIMEOUT_MS));
        String m = master.address();
        List<RegionServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                servers.add(RegionServer.start(MiniCluster.serverConf(root.resolve("rs" + i), MiniCluster.freePort(), m)));
            }
            await("three servers online", m, statusShows(m, s -> s.split("\"online\": true").length - 1 == 3));
            Configuration clientConf = new Configuration().set(ClusterKeys.MASTERS, m);
            try (Connection c = Connection.open(clientConf)) {
                Admin admin = c.getAdmin();
                byte[][] splits = new byte[5][];
                for (int i = 0; i < 5; i++) {
                    splits[i] = b("row" + (i + 1) * 100);
                }
                admin.createTable(new TableDescriptor("T", F, Compression.NONE), splits);
                Map<String, List<RegionInfo>> byServer = admin.regionsByServer("T");
                assertEquals(3, byServer.size(), "every server holds regions: " + byServer.keySet());
                assertTrue(byServer.keySet().stream().allMatch(s -> s.startsWith(HOST + ":")));

                Table t = c.getTable("T");
                List<Put> batch = new ArrayList<>();
                for (int i = 0; i < 600; i++) {
                    batch.add(new Put(b(String.format("row%03d", i))).addColumn(F, Q, b("v" + i)));
                }
                t.put(batch);
                List<Get> gets = new ArrayList<>();
                for (int i = 0; i < 600; i += 7) {
                    gets.add(new Get(b(String.format("row%03d", i))));
                }
                Result[] results = t.get(gets);
                for (int k = 0; k < results.length; k++) {
                    assertArrayEquals(b("v" + k * 7), results[k].getValue(F, Q), "multi-get in request order");
                }
                int rows = 0;
                byte[] last = null;
                try (ResultScanner scanner = t.getScanner(new Scan().setCaching(70))) {
                    for (Result r : scanner) {
                        if (last != null) {
                            assertTrue(java.util.Arrays.compareUnsigned(last, r.getRow()) < 0, "rows in order");
                        }
                        last = r.getRow();
                        rows++;
                    }
                }
                assertEquals(600, rows, "the scan went over all six regions on three servers");

                assertEquals(5, t.increment(b("row450"), F, b("n"), 5));
                assertEquals(7, t.increment(b("row450"), F, b("n"), 2));
                t.delete(new Delete(b("row050")));
                assertTrue(t.get(b("row050")).isEmpty());
                admin.flush("T");
                admin.majorCompact("T");
                assertArrayEquals(b("v599"), t.get(b("row599")).getValue(F, Q));
                assertTrue(shows(admin.clusterStatus(), HOST + ":" + servers.get(0).port(), true));
                admin.dropTable("T");
                assertTrue(admin.tables().isEmpty());
            }
        } finally {
            servers.forEach(RegionServer::stop);
            master.stop();
        }
    }
}
