package org.heaplab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.heaplab.client.Connection;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/** The binding and the increment workload against a real region server in this JVM (loopback, any free port). */
@Timeout(60)
class EngineClientTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    @TempDir
    static Path dir;
    private static RegionServer server;
    private static Connection admin;

    @BeforeAll
    static void start() throws Exception {
        server = RegionServer.start(new Configuration().set("hbase.rootdir", dir.resolve("data").toString())
            .set(RegionServer.HOSTNAME_KEY, HOST).set(RegionServer.PORT_KEY, "0").set("hbase.regionserver.handler.count", "4"));
        admin = Connection.open(HOST, server.port());
        for (String t : List.of("usertable", "counters")) {
            admin.getAdmin().createTable(new TableDescriptor(t, "family".getBytes(StandardCharsets.UTF_8), Compression.NONE), new byte[0][]);
        }
    }

    @AfterAll
    static void stop() {
        admin.close();
        server.stop();
    }

    private static Properties props() {
        Properties p = new Properties();
        p.setProperty("hbase.regionserver.hostname", HOST);
        p.setProperty("hbase.regionserver.port", Integer.toString(server.port()));
        p.setProperty("hbase.client.retries.number", "1");
        p.setProperty("measurementtype", "hdrhistogram");
        return p;
    }

    private static EngineClient client() throws Exception {
        EngineClient c = new EngineClient();
        c.setProperties(props());
        c.init();
        return c;
    }

    private static Map<String, ByteIterator> values(String... kv) {
        Map<String, ByteIterator> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], new StringByteIterator(kv[i + 1]));
        }
        return m;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> m) {
        Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }

    @Test
    void crudAndScan() throws Exception {
        EngineClient c = client();
        try {
            for (int i = 0; i < 5; i++) {
                assertEquals(Status.OK, c.insert("usertable", "user" + i, values("field0", "a" + i, "field1", "b" + i)));
            }
            Map<String, ByteIterator> row = new HashMap<>();
            assertEquals(Status.OK, c.read("usertable", "user3", null, row));
            assertEquals(Map.of("field0", "a3", "field1", "b3"), strings(row), "all fields");
            row.clear();
            assertEquals(Status.OK, c.read("usertable", "user3", Set.of("field1"), row));
            assertEquals(Map.of("field1", "b3"), strings(row), "the requested field only");

            assertEquals(Status.OK, c.update("usertable", "user3", values("field1", "changed")));
            row.clear();
            c.read("usertable", "user3", null, row);
            assertEquals(Map.of("field0", "a3", "field1", "changed"), strings(row), "update keeps the other fields");

            Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
            assertEquals(Status.OK, c.scan("usertable", "user1", 3, Set.of("field0"), rows));
            assertEquals(List.of(Map.of("field0", "a1"), Map.of("field0", "a2"), Map.of("field0", "a3")),
                rows.stream().map(EngineClientTest::strings).toList(), "3 rows from user1, field0 only");

            assertEquals(Status.OK, c.delete("usertable", "user3"));
            row.clear();
            assertEquals(Status.NOT_FOUND, c.read("usertable", "user3", null, row), "a deleted row is not found");
            assertEquals(Status.NOT_FOUND, c.read("usertable", "nobody", null, row));
            assertEquals(Status.ERROR, c.read("missing_table", "user1", null, row), "an error is a status, not an exception");
            assertEquals(Status.ERROR, c.insert("missing_table", "user1", values("field0", "x")));
        } finally {
            c.cleanup();
        }
    }

    @Test
    void incrementWorkloadLoadsCountersAndMeasuresIncrements() throws Exception {
        Properties p = props();
        p.setProperty("table", "counters");
        p.setProperty("recordcount", "20");
        p.setProperty("requestdistribution", "uniform");
        Measurements.setProperties(p);
        IncrementWorkload w = new IncrementWorkload();
        w.init(p);
        EngineClient c = client();
        Object state = w.initThread(p, 0, 1);
        try {
            for (int i = 0; i < 20; i++) {
                assertTrue(w.doInsert(c, state));
            }
            for (int i = 0; i < 200; i++) {
                assertTrue(w.doTransaction(c, state));
            }
        } finally {
            w.cleanup();
            c.cleanup();
        }
        Table t = admin.getTable("counters");
        long sum = 0;
        for (int i = 0; i < 20; i++) {
            byte[] v = t.get(org.heaplab.tools.YcsbKeys.key(i).getBytes(StandardCharsets.UTF_8))
                .getValue("family".getBytes(StandardCharsets.UTF_8), "counter".getBytes(StandardCharsets.UTF_8));
            assertEquals(8, v.length, "the loaded counter is an 8-byte long");
            sum += ByteBuffer.wrap(v).getLong();
        }
        assertEquals(200, sum, "every increment landed on a loaded row's counter");
        String summary = Measurements.getMeasurements().getSummary();
        assertTrue(summary.contains("[INCREMENT: Count=200,"), summary);
    }

    @Test
    void incrementWorkloadRefusesABindingWithoutIncrements() throws Exception {
        Properties p = props();
        p.setProperty("table", "counters");
        p.setProperty("db", "site.ycsb.BasicDB"); // YCSB's own stand-in DB: no Counters.Source
        Measurements.setProperties(p);
        IncrementWorkload w = new IncrementWorkload();
        w.init(p);
        WorkloadException e = assertThrows(WorkloadException.class, () -> w.initThread(p, 0, 1));
        assertEquals("the binding site.ycsb.BasicDB has no increments (it is not a Counters.Source)", e.getMessage());
    }
}
