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
import org.heaplab.client.Connection;
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
}
