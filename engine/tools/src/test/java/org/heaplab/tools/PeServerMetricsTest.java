package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.heaplab.client.Connection;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.util.JsonWriter;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** pe --report records the server side of its measured window: METRICS before and after, per region server. */
@Timeout(120)
class PeServerMetricsTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    /** The number after {@code "key": } at or after {@code from}. */
    private static long num(String json, int from, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": (-?\\d+)").matcher(json);
        assertTrue(m.find(from), key + " after " + from + " in " + json);
        return Long.parseLong(m.group(1));
    }

    /** The index of {@code "name": {} at or after {@code from}. */
    private static int at(String json, int from, String name) {
        int i = json.indexOf("\"" + name + "\": {", from);
        assertTrue(i >= 0, name + " after " + from + " in " + json);
        return i;
    }

    @Test
    void aReportCarriesEveryServersMetricsBeforeAndAfterTheRun(@TempDir Path dir) throws Exception {
        PerformanceEvaluationTest.assumeStorage(dir);
        // 1.x memory paths: each request cell is copied once into a heap array on the server
        RegionServer server = RegionServer.start(PerformanceEvaluationTest.conf(dir.resolve("data"), 0)
            .set("heaplab.rpc.cell.decoder", "copying"));
        try {
            Configuration conf = PerformanceEvaluationTest.conf(dir.resolve("unused"), server.port());
            String prefix = dir.resolve("batch_put").toString();
            PeOptions o = PeOptions.parse(List.of(("--nomapred --oneCon=true --valueSize=200 --rows=500 --autoFlush=true"
                + " --multiPut=10 --presplit=2 --report=" + prefix + " randomWrite 2").split(" ")));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = new PerformanceEvaluation(o, conf, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run();
            assertEquals(0, code, err.toString(StandardCharsets.UTF_8));

            String json = Files.readString(Path.of(prefix + ".json"));
            int sm = json.indexOf("\"server_metrics\": [{\"server\": \"" + HOST + ":" + server.port() + "\", \"before\": {");
            assertTrue(sm > 0, "one entry, for the one server: " + json);
            assertFalse(json.substring(sm).contains("\"error\""), json);
            int before = at(json, sm, "before");
            int after = at(json, before + 1, "after");
            assertEquals(1, Pattern.compile("\\{\"server\": ").matcher(json).results().count(), "a single server entry");

            assertEquals(100, num(json, at(json, after, "rpc_calls"), "MULTI_PUT") - num(json, at(json, before, "rpc_calls"), "MULTI_PUT"),
                "1000 rows in batches of 10");
            assertEquals(1000, num(json, at(json, after, "copies"), "request_heap_copies")
                - num(json, at(json, before, "copies"), "request_heap_copies"), "one copy per cell, nothing else");
            for (String group : new String[] {"handler", "reader", "wal"}) {
                long delta = num(json, at(json, after, "alloc"), group) - num(json, at(json, before, "alloc"), group);
                assertTrue(delta > 0, group + " threads allocated during the run: " + delta);
            }
            assertTrue(num(json, at(json, after, "alloc"), "handler") - num(json, at(json, before, "alloc"), "handler")
                > 1000 * 200, "at least the copied values");
        } finally {
            server.stop();
        }
    }

    @Test
    void aServerThatFailsItsCallIsRecordedNotFatal(@TempDir Path dir) throws Exception {
        PerformanceEvaluationTest.assumeStorage(dir);
        RegionServer server = RegionServer.start(PerformanceEvaluationTest.conf(dir.resolve("data"), 0));
        try (Connection c = Connection.open(HOST, server.port())) {
            c.getAdmin().createTable(new TableDescriptor("T", "info0".getBytes(StandardCharsets.US_ASCII), Compression.NONE),
                new byte[0][]);
            ServerMetricsWindow w = ServerMetricsWindow.begin(c.getAdmin(), "T");
            server.stop(); // the server goes away during the run
            w.end();
            List<JsonWriter> entries = w.json();
            assertEquals(1, entries.size());
            String e = entries.get(0).toString();
            assertTrue(e.startsWith("{\"server\": \"" + HOST + ":" + server.port() + "\", \"before\": {\"format\": 1"), e);
            assertTrue(e.contains("\"error\": \"METRICS after the run failed: "), e);
            assertFalse(e.contains("\"after\""), e);
        } finally {
            server.stop();
        }
    }
}
