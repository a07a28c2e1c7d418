package org.heaplab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.heaplab.client.Connection;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.util.JsonWriter;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** The binding's threads take the servers' METRICS before the first and after the last operation. */
@Timeout(60)
class YcsbServerWindowTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    @AfterEach
    void reset() {
        YcsbServerWindow.reset();
    }

    private static long num(String json, int from, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": (-?\\d+)").matcher(json);
        assertTrue(m.find(from), key + " in " + json);
        return Long.parseLong(m.group(1));
    }

    @Test
    void firstThreadTakesBeforeLastThreadTakesAfter(@TempDir Path dir) throws Exception {
        RegionServer server = RegionServer.start(new Configuration().set("hbase.rootdir", dir.resolve("data").toString())
            .set(RegionServer.HOSTNAME_KEY, HOST).set(RegionServer.PORT_KEY, "0").set("hbase.regionserver.handler.count", "4"));
        try (Connection admin = Connection.open(HOST, server.port())) {
            admin.getAdmin().createTable(new TableDescriptor("usertable", "family".getBytes(StandardCharsets.UTF_8),
                Compression.NONE), new byte[0][]);
            Properties p = new Properties();
            p.setProperty("hbase.regionserver.hostname", HOST);
            p.setProperty("hbase.regionserver.port", Integer.toString(server.port()));
            assertNull(YcsbServerWindow.finish(), "no --report: no server_metrics field");

            YcsbServerWindow.enable("usertable", 2);
            EngineClient a = new EngineClient();
            EngineClient b = new EngineClient();
            a.setProperties(p);
            b.setProperties(p);
            a.init();
            b.init();
            for (int i = 0; i < 30; i++) {
                EngineClient c = i % 2 == 0 ? a : b;
                assertEquals(Status.OK, c.insert("usertable", "user" + i, java.util.Map.of("field0", new StringByteIterator("v" + i))));
            }
            a.cleanup();
            b.cleanup(); // the last thread: "after" now, before any later call could count
            admin.getAdmin().metrics(false);
            List<JsonWriter> entries = YcsbServerWindow.finish();
            assertEquals(1, entries.size());
            String e = entries.get(0).toString();
            assertFalse(e.contains("\"error\""), e);
            int before = e.indexOf("\"before\": {");
            int after = e.indexOf("\"after\": {");
            assertTrue(before > 0 && after > before, e);
            assertEquals(30, num(e, e.indexOf("\"rpc_calls\"", after), "PUT") - num(e, e.indexOf("\"rpc_calls\"", before), "PUT"),
                "exactly the 30 inserts: the window closed with the last thread, not at the later METRICS call");
        } finally {
            server.stop();
        }
    }

    @Test
    void noThreadStartedIsAnErrorEntry() {
        YcsbServerWindow.enable("usertable", 4);
        List<JsonWriter> entries = YcsbServerWindow.finish();
        assertEquals(1, entries.size());
        assertTrue(entries.get(0).toString().contains("\"error\": \"no YCSB thread started"), entries.get(0).toString());
    }
}
