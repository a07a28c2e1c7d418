package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.heaplab.client.Admin;
import org.heaplab.client.BufferedMutator;
import org.heaplab.client.ClientSettings;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.server.RegionServer;
import org.heaplab.server.master.Master;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client against a real cluster in this JVM on loopback: a master and three region servers, a
 * pre-split table spread over all three. Batch writers keep writing while one region server is stopped
 * and started again; the client's retries carry them through and every acknowledged row reads back
 * (admin count equals them). A table re-created with other regions sends a client with stale locations
 * to the wrong server: NOT_SERVING_REGION makes it locate again, once.
 */
@Timeout(60)
class ClusterRetriesTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private static final byte[][] SPLITS = {PeData.rowKey(1_000), PeData.rowKey(2_000), PeData.rowKey(3_000),
        PeData.rowKey(4_000), PeData.rowKey(5_000)};

    @TempDir
    Path root;
    private Master master;
    private final RegionServer[] servers = new RegionServer[3];
    private final int[] ports = new int[3];

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private Configuration serverConf(int i) {
        return new Configuration().set("hbase.rootdir", root.resolve("rs" + i).toString())
            .set(RegionServer.HOSTNAME_KEY, HOST).set(RegionServer.PORT_KEY, Integer.toString(ports[i]))
            .set("hbase.regionserver.handler.count", "4").set("hbase.regionserver.info.port", "-1")
            .set("hfile.block.cache.size", "0.05").set("hbase.regionserver.global.memstore.size", "0.1")
            .set("hbase.cluster.distributed", "true").set("hbase.masters", master.address())
            .set("hbase.regionserver.msginterval", "200");
    }

    private Configuration clientConf() {
        return new Configuration().set(Connection.MASTERS_KEY, master.address()).set(ClientSettings.PAUSE_KEY, "20");
    }

    @BeforeEach
    void startCluster() throws Exception {
        PerformanceEvaluationTest.assumeStorage(root);
        master = Master.start(new Configuration().set("hbase.rootdir", root.resolve("master").toString())
            .set("hbase.master.hostname", HOST).set("hbase.master.port", Integer.toString(freePort()))
            .set("hbase.master.info.port", "-1").set("hbase.master.handler.count", "8")
            .set("hbase.regionserver.msginterval", "200").set("heaplab.master.regionserver.timeout", "1500"));
        for (int i = 0; i < 3; i++) {
            ports[i] = freePort();
            servers[i] = RegionServer.start(serverConf(i));
        }
        try (Connection c = Connection.open(clientConf())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (onlineServers(c.getAdmin().clusterStatus()) < 3) {
                if (System.nanoTime() > deadline) {
                    fail("three region servers did not register: " + c.getAdmin().clusterStatus());
                }
                Thread.sleep(50);
            }
        }
    }

    private static int onlineServers(String status) {
        int n = 0;
        for (int i = status.indexOf("\"online\": true"); i >= 0; i = status.indexOf("\"online\": true", i + 1)) {
            n++;
        }
        return n;
    }

    @AfterEach
    void stopCluster() {
        for (RegionServer s : servers) {
            if (s != null) {
                s.stop();
            }
        }
        if (master != null) {
            master.stop();
        }
    }

    @Test
    void batchWritersRideThroughARegionServerRestart() throws Exception {
        Set<String> acked = ConcurrentHashMap.newKeySet();
        List<Throwable> problems = new CopyOnWriteArrayList<>();
        CountDownLatch someWritten = new CountDownLatch(3);
        CountDownLatch restarted = new CountDownLatch(1);
        try (Connection c = Connection.open(clientConf())) {
            Admin admin = c.getAdmin();
            admin.createTable(new TableDescriptor("TestTable", PeData.FAMILY, Compression.NONE), SPLITS);
            Map<String, List<RegionInfo>> byServer = admin.regionsByServer("TestTable");
            assertEquals(3, byServer.size(), "the table is spread over all three servers: " + byServer.keySet());
            byServer.values().forEach(l -> assertEquals(2, l.size(), "round robin: two regions each"));

            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int id = w;
                Thread t = new Thread(() -> {
                    try (Connection own = Connection.open(clientConf())) { // pe's default: a Connection per thread
                        write(own.getTable("TestTable"), id, acked, someWritten, restarted);
                    } catch (Throwable e) {
                        problems.add(e);
                    }
                }, "writer-" + w);
                writers.add(t);
                t.start();
            }
            assertTrue(someWritten.await(20, TimeUnit.SECONDS), "writers acknowledged nothing");
            servers[1].stop();
            int ackedAtStop = acked.size();
            assertTrue(writers.stream().allMatch(Thread::isAlive), "the stop landed mid-run");
            Thread.sleep(500); // the writers meet refused connections and back off
            servers[1] = RegionServer.start(serverConf(1)); // same port and directory: replays its WAL
            restarted.countDown();
            for (Thread t : writers) {
                t.join(40_000);
                assertFalse(t.isAlive(), "a writer is stuck");
            }
            assertEquals(List.of(), problems, "the client's retries carried every writer through the restart");
            assertTrue(acked.size() > ackedAtStop, "the writers went on after the restart");

            Table t = c.getTable("TestTable");
            List<String> missing = new ArrayList<>();
            for (String row : acked) {
                if (t.get(row.getBytes(StandardCharsets.US_ASCII)).isEmpty()) {
                    missing.add(row);
                }
            }
            assertEquals(List.of(), missing, "acknowledged rows lost (of " + acked.size() + ")");
            assertEquals(acked.size(), AdminCli.countRows(t), "admin count: every acknowledged row, nothing else");
        }
    }

    /** Rows id*2000 .. id*2000+1999 through a small buffered mutator, spread over time so the restart lands mid-run. */
    private static void write(Table t, int id, Set<String> acked, CountDownLatch someWritten, CountDownLatch restarted)
        throws IOException, InterruptedException {
        BufferedMutator m = t.bufferedMutator(8 * 1024);
        List<String> buffered = new ArrayList<>();
        boolean counted = false;
        int afterRestart = 0;
        for (int i = 0; i < 2_000 && afterRestart < 400; i++) {
            byte[] row = PeData.rowKey(id * 2_000 + i);
            buffered.add(new String(row, StandardCharsets.US_ASCII));
            if (m.mutate(new Put(row).addColumn(PeData.FAMILY, PeData.QUALIFIER, new byte[100]))) {
                acked.addAll(buffered); // the batch went out, split over the servers, and every part was acknowledged
                buffered.clear();
                if (!counted) {
                    someWritten.countDown();
                    counted = true;
                }
            }
            if (restarted.getCount() == 0) {
                afterRestart++;
            } else if (i % 20 == 0) {
                Thread.sleep(5);
            }
        }
        m.close();
        acked.addAll(buffered);
    }

    @Test
    void staleLocationsAreDroppedOnNotServingRegion() throws Exception {
        try (Connection admin = Connection.open(clientConf()); Connection stale = Connection.open(clientConf())) {
            TableDescriptor desc = new TableDescriptor("Moved", PeData.FAMILY, Compression.NONE);
            admin.getAdmin().createTable(desc, SPLITS);
            Map<String, List<RegionInfo>> before = admin.getAdmin().regionsByServer("Moved");
            Table t = stale.getTable("Moved");
            t.put(new Put(PeData.rowKey(0)).addColumn(PeData.FAMILY, PeData.QUALIFIER, new byte[1])); // caches the layout
            assertEquals(1, stale.locateCalls());

            // the same table again with one more split at the front: every region index shifts by one, so
            // each region's rows now live on the next server round the ring
            byte[][] shifted = new byte[SPLITS.length + 1][];
            shifted[0] = PeData.rowKey(500);
            System.arraycopy(SPLITS, 0, shifted, 1, SPLITS.length);
            admin.getAdmin().dropTable("Moved");
            admin.getAdmin().createTable(desc, shifted);
            Map<String, List<RegionInfo>> after = admin.getAdmin().regionsByServer("Moved");
            byte[] row = PeData.rowKey(1_500);
            String oldServer = serverOf(before, row);
            String newServer = serverOf(after, row);
            assertNotEquals(oldServer, newServer, "the row's region moved to another server: " + before.keySet());

            t.put(new Put(row).addColumn(PeData.FAMILY, PeData.QUALIFIER, "v".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(2, stale.locateCalls(), "NOT_SERVING_REGION from " + oldServer + ": one LOCATE, then " + newServer);
            assertEquals("v", new String(admin.getTable("Moved").get(row).getValue(PeData.FAMILY, PeData.QUALIFIER),
                StandardCharsets.US_ASCII));
        }
    }

    @Test
    void peAndAdminWorkAcrossTheCluster() throws Exception {
        for (String line : new String[] {"--nomapred --oneCon=true --rows=400 --valueSize=50 --presplit=6 sequentialWrite 3",
            "--nomapred --oneCon=false --rows=400 randomRead 3", "--nomapred --oneCon=true --rows=400 --caching=7 scan 3"}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = new PerformanceEvaluation(PeOptions.parse(List.of(line.split(" "))), clientConf(),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)).run();
            assertEquals(0, code, line + ": " + err.toString(StandardCharsets.UTF_8));
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("Summary of timings (ms)"), out.toString(StandardCharsets.UTF_8));
        }
        try (Connection c = Connection.open(clientConf())) {
            assertEquals(1200, AdminCli.countRows(c.getTable("TestTable")), "every row pe wrote, over six regions on three servers");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
            for (String cmd : new String[] {"regions TestTable", "status", "count TestTable --json", "flush TestTable",
                "compact TestTable", "tables"}) {
                AdminCli.execute(AdminCli.parse(cmd.split(" ")), c, ps);
            }
            String text = out.toString(StandardCharsets.UTF_8);
            for (int i = 0; i < 3; i++) {
                String server = HOST + ":" + ports[i];
                assertTrue(text.contains("\n" + server + "\t"), "regions lists " + server + ": " + text);
                assertTrue(text.contains("\"server\": \"" + server + "\""), "status lists " + server + ": " + text);
            }
            assertTrue(text.contains("{\"table\": \"TestTable\", \"rows\": 1200}"), text);
            assertTrue(text.contains("flushed table TestTable") && text.contains("major-compacted table TestTable"), text);
            assertEquals(6, c.getAdmin().regions("TestTable").size());
            assertEquals(1200, AdminCli.countRows(c.getTable("TestTable")), "still every row after flush and compaction");
        }
    }

    private static String serverOf(Map<String, List<RegionInfo>> byServer, byte[] row) {
        for (Map.Entry<String, List<RegionInfo>> e : byServer.entrySet()) {
            for (RegionInfo r : e.getValue()) {
                if (Arrays.compareUnsigned(r.startKey(), row) <= 0
                    && (r.endKey().length == 0 || Arrays.compareUnsigned(row, r.endKey()) < 0)) {
                    return e.getKey();
                }
            }
        }
        throw new AssertionError("no region holds " + new String(row, StandardCharsets.US_ASCII));
    }
}
