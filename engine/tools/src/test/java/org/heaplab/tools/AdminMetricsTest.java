package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class AdminMetricsTest {
    @Test
    void parsesMetricsWithGcAndReportBeforeOrAfterTheVerb() throws Exception {
        AdminCli.Command c = AdminCli.parse(new String[] {"metrics", "--gc", "--report=/tmp/x/m"});
        assertEquals("metrics", c.verb());
        assertTrue(c.gc());
        assertEquals("/tmp/x/m", c.report());
        c = AdminCli.parse(new String[] {"--report=out/m", "metrics", "--gc"});
        assertTrue(c.gc());
        assertEquals("out/m", c.report());
        c = AdminCli.parse(new String[] {"metrics"});
        assertFalse(c.gc());
        assertEquals(null, c.report());
        assertEquals("--report is only for admin metrics",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"--report=m", "status"})).getMessage());
        assertEquals("--report needs a value: --report=PREFIX (writes PREFIX.json)",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"metrics", "--report"})).getMessage());
        assertEquals("unknown flag --all for admin metrics",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"metrics", "--all"})).getMessage());
    }

    @Test
    void printsTheServersJsonAndWritesTheReport(@TempDir Path dir) throws Exception {
        PerformanceEvaluationTest.assumeStorage(dir);
        RegionServer server = RegionServer.start(PerformanceEvaluationTest.conf(dir.resolve("data"), 0));
        try (Connection c = Connection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
            Path prefix = dir.resolve("reports").resolve("metrics");
            AdminCli.execute(AdminCli.parse(new String[] {"--report=" + prefix, "metrics", "--gc"}), c, ps);
            String printed = out.toString(StandardCharsets.UTF_8);
            assertTrue(printed.startsWith("{\"format\": 1, \"tool\": \"admin\", \"command\": \"metrics\", \"gc_requested\": true, "
                + "\"heap\": {\"used_bytes\": "), printed);
            for (String group : new String[] {"heap", "direct", "memstore", "chunks", "request_buffers", "wal"}) {
                assertTrue(printed.contains("\"" + group + "\": {"), group + " in " + printed);
            }
            assertTrue(printed.contains("\"index\": \"CSLM\""), "the default memstore: " + printed);
            assertEquals(printed, Files.readString(Path.of(prefix + ".json"), StandardCharsets.UTF_8));
        } finally {
            server.stop();
        }
    }

    /** The number after {@code "key": } in the object that starts at {@code "group": {} (first match). */
    private static long num(String json, String group, String key) {
        int at = json.indexOf("\"" + group + "\": {");
        assertTrue(at >= 0, "group " + group + " in " + json);
        Matcher m = Pattern.compile("\"" + key + "\": (-?\\d+)").matcher(json);
        assertTrue(m.find(at), group + "." + key + " in " + json);
        return Long.parseLong(m.group(1));
    }

    /**
     * Lab 08's phases after the insert: `admin flush TestTable` returns once every memstore of the table is
     * written out and empty, and the next `admin metrics --gc` shows it: no cell, no cell data, no chunk in
     * use (the on-heap pool keeps them free for the next memstore), one store file per region.
     */
    @Test
    void flushReturnsOnceEveryMemstoreIsEmpty(@TempDir Path dir) throws Exception {
        PerformanceEvaluationTest.assumeStorage(dir);
        RegionServer server = RegionServer.start(PerformanceEvaluationTest.conf(dir.resolve("data"), 0)
            .set("hbase.hregion.memstore.mslab.enabled", "true")
            .set("hbase.hregion.memstore.mslab.chunksize", "65536")
            .set("hbase.hregion.memstore.mslab.max.allocation", "16384")
            .set("hbase.hregion.compacting.memstore.type", "BASIC")
            .set("hbase.hregion.compacting.memstore.index", "CHUNK_MAP")
            .set("hbase.memstore.inmemoryflush.threshold.factor", "0.001")); // flatten every ~130 KB
        try (Connection c = Connection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
            int rows = 8000;
            AdminCli.execute(AdminCli.parse(new String[] {"create", "TestTable", "--presplit=4", "--rows=" + rows}), c, ps);
            for (int batch = 0; batch < rows; batch += 500) {
                List<Put> puts = new ArrayList<>();
                for (int i = batch; i < batch + 500; i++) {
                    puts.add(new Put(PeData.rowKey(i)).addColumn(PeData.FAMILY, PeData.QUALIFIER, new byte[100]));
                }
                c.getTable("TestTable").put(puts);
            }
            Path reports = dir.resolve("reports");
            AdminCli.execute(AdminCli.parse(new String[] {"--report=" + reports.resolve("after"), "metrics", "--gc"}), c, ps);
            AdminCli.execute(AdminCli.parse(new String[] {"flush", "TestTable"}), c, ps);
            AdminCli.execute(AdminCli.parse(new String[] {"--report=" + reports.resolve("flushed"), "metrics", "--gc"}), c, ps);
            String after = Files.readString(reports.resolve("after.json"), StandardCharsets.UTF_8);
            String flushed = Files.readString(reports.resolve("flushed.json"), StandardCharsets.UTF_8);
            assertEquals(rows, num(after, "memstore", "cells"), after);
            long chunks = num(after, "chunks", "onheap_in_use");
            assertTrue(chunks >= 4 && num(after, "memstore", "flattened_segments") > 0, after);
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("flushed table TestTable\n"));
            assertEquals(0, num(flushed, "memstore", "cells"), flushed);
            assertEquals(0, num(flushed, "memstore", "data_bytes"), flushed);
            assertEquals(0, num(flushed, "memstore", "flattened_segments"), flushed);
            assertEquals(0, num(flushed, "chunks", "onheap_in_use"), "every chunk back in the pool: " + flushed);
            assertTrue(num(flushed, "chunks", "pooled_free") >= chunks, "the pool keeps them for reuse: " + flushed);
            assertEquals(4, num(flushed, "store_files", "count"), "one store file per region: " + flushed);
            for (var r : c.getAdmin().regions("TestTable")) {
                assertEquals(0, r.memstoreBytes(), r.encodedName());
            }
        } finally {
            server.stop();
        }
    }
}
