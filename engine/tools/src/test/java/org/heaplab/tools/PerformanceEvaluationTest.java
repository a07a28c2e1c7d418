package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.heaplab.client.Connection;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** pe end to end against an in-JVM region server on a loopback port. */
@Timeout(120)
class PerformanceEvaluationTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    static void assumeStorage(Path dir) throws Exception {
        boolean ok;
        try (OnlineRegions r = OnlineRegions.open(new Configuration().set("hbase.rootdir", dir.resolve("probe").toString()))) {
            ok = true;
        } catch (UnsupportedOperationException e) {
            ok = false;
        }
        Assumptions.assumeTrue(ok, "skipped: heaplab-core's OnlineRegions is still a stub");
    }

    static Configuration conf(Path root, int port) {
        return new Configuration().set("hbase.rootdir", root.toString()).set(RegionServer.HOSTNAME_KEY, HOST)
            .set(RegionServer.PORT_KEY, Integer.toString(port)).set("hbase.regionserver.handler.count", "8");
    }

    private record Run(int code, String out, String err) {
    }

    private static Run pe(Configuration conf, String line) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PeOptions o = PeOptions.parse(List.of(line.split(" ")));
        int code = new PerformanceEvaluation(o, conf, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)).run();
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void writesReadsAndReports(@TempDir Path dir) throws Exception {
        assumeStorage(dir);
        RegionServer server = RegionServer.start(conf(dir.resolve("data"), 0));
        try {
            Configuration conf = conf(dir.resolve("unused"), server.port());
            String prefix = dir.resolve("client/single_put-h1").toString();
            Run w = pe(conf, "--nomapred --oneCon=true --valueSize=100 --rows=500 --autoFlush=true --presplit=4"
                + " --compress=SNAPPY --report=" + prefix + " randomWrite 2");
            assertEquals(0, w.code(), w.err());
            assertTrue(w.out().contains("Test : RandomWriteTest, Thread : TestClient-0\n"), w.out());
            assertTrue(w.out().contains("Test : RandomWriteTest, Thread : TestClient-1\n"), w.out());
            assertTrue(Pattern.compile("(?m)^\\[RandomWriteTest\\] Summary of timings \\(ms\\): \\[\\d+, \\d+\\]$").matcher(w.out()).find());
            assertTrue(Pattern.compile("(?m)^\\[ Avg latency \\(us\\)\\]\t\\d+$").matcher(w.out()).find());
            assertTrue(Pattern.compile("(?m)^\\[ Avg TPS/QPS\\]\t\\d+\t row per second$").matcher(w.out()).find());
            assertEquals(20, w.err().lines().filter(l -> l.startsWith("TestClient-")).count(), "10 progress lines per client");

            String json = Files.readString(Path.of(prefix + ".json"));
            for (String field : new String[] {"\"format\": 1", "\"tool\": \"pe\"", "\"command\": \"randomWrite\"",
                "\"test\": \"RandomWriteTest\"", "\"threads\": 2", "\"rows_per_thread\": 500", "\"value_size\": 100",
                "\"batch_size\": 1", "\"operations\": 1000", "\"rows\": 1000", "\"hlog\": \"single_put-h1.hlog\"",
                "\"latency_us\": {\"mean\": "}) {
                assertTrue(json.contains(field), field + " in " + json);
            }
            Matcher p999 = Pattern.compile("\"p999\": (\\d+)").matcher(json);
            assertTrue(p999.find());
            assertEquals(1000, hlogCount(Path.of(prefix + ".hlog")), "every measured call is in the interval log");

            try (Connection c = Connection.open(HOST, server.port())) {
                assertEquals(4, c.getAdmin().regions("TestTable").size());
            }

            Run batch = pe(conf, "--nomapred --valueSize=50 --rows=300 --autoFlush=true --multiPut=100 --presplit=4"
                + " --report=" + dir.resolve("b") + " sequentialWrite 2");
            assertEquals(0, batch.code(), batch.err());
            String bjson = Files.readString(dir.resolve("b.json"));
            assertTrue(bjson.contains("\"operations\": 6,") && bjson.contains("\"rows\": 600,") && bjson.contains("\"batch_size\": 100"), bjson);

            Run buffered = pe(conf, "--nomapred --valueSize=50 --rows=300 --autoFlush=false sequentialWrite 1");
            assertEquals(0, buffered.code(), buffered.err());

            Run read = pe(conf, "--nomapred --rows=200 randomRead 2");
            assertEquals(0, read.code(), read.err());
            assertTrue(read.out().contains("[RandomReadTest] Summary of timings"), read.out());

            Run resplit = pe(conf, "--nomapred --rows=100 --presplit=2 randomWrite 1");
            assertEquals(0, resplit.code(), resplit.err());
            try (Connection c = Connection.open(HOST, server.port())) {
                assertEquals(2, c.getAdmin().regions("TestTable").size(), "--presplit recreates a table of another shape");
            }
            Run missing = pe(conf, "--nomapred --table=Absent --rows=10 randomRead 1");
            assertEquals(1, missing.code());
            assertTrue(missing.err().startsWith("ERROR: table 'Absent' does not exist"), missing.err());
        } finally {
            server.stop();
        }
    }

    @Test
    void readAndIncrementCommandsPrintHBasePeBlocks(@TempDir Path dir) throws Exception {
        assumeStorage(dir);
        RegionServer server = RegionServer.start(conf(dir.resolve("data"), 0));
        try {
            Configuration conf = conf(dir.resolve("unused"), server.port());
            Run inc = pe(conf, "--nomapred --rows=50 --table=Inc --blockEncoding=DIFF --bloomFilter=NONE --inmemory=true increment 2");
            assertEquals(0, inc.code(), inc.err());
            assertTrue(inc.out().contains("Test : IncrementTest, Thread : TestClient-1\n"), inc.out());
            assertTrue(inc.out().contains("Finished class " + PerformanceEvaluation.class.getName() + "$IncrementTest in "), inc.out());
            assertTrue(Pattern.compile("(?m)^\\[IncrementTest\\] Summary of timings \\(ms\\): \\[\\d+, \\d+\\]$").matcher(inc.out()).find());
            assertEquals(org.heaplab.core.io.DataBlockEncoding.DIFF, server.regions().describe("Inc").encoding(),
                "pe creates the table with the family options");
            assertTrue(server.regions().describe("Inc").inMemory());
            Run again = pe(conf, "--nomapred --rows=50 --table=Inc increment 2");
            assertEquals(0, again.code(), again.err());
            try (Connection c = Connection.open(HOST, server.port())) {
                byte[] v = c.getTable("Inc").get(PeData.rowKey(49)).getValue(PeData.FAMILY, PeClient.INCREMENT_QUALIFIER);
                assertEquals(2, java.nio.ByteBuffer.wrap(v).getLong(), "each run incremented every row once");
            }

            Run load = pe(conf, "--nomapred --rows=300 --valueSize=20 --autoFlush=true sequentialWrite 2");
            assertEquals(0, load.code(), load.err());
            Run seq = pe(conf, "--nomapred --rows=300 --report=" + dir.resolve("seq") + " sequentialRead 2");
            assertEquals(0, seq.code(), seq.err());
            assertTrue(seq.out().contains("Test : SequentialReadTest, Thread : TestClient-0\n"), seq.out());
            assertTrue(seq.out().contains("Num measures (latency) : 300\n"), seq.out());
            assertTrue(seq.out().contains("[SequentialReadTest] Summary of timings"), seq.out());
            assertTrue(Files.readString(dir.resolve("seq.json")).contains("\"test\": \"SequentialReadTest\""));
            Run scan = pe(conf, "--nomapred --rows=300 --caching=7 scan 2");
            assertEquals(0, scan.code(), scan.err());
            assertTrue(scan.out().contains("Test : ScanTest, Thread : TestClient-1\n"), scan.out());
            assertTrue(scan.out().contains("Num measures (latency) : 300\n"), "one measure per next(): " + scan.out());
            assertTrue(scan.out().contains("Finished class " + PerformanceEvaluation.class.getName() + "$ScanTest in "), scan.out());
            Run range = pe(conf, "--nomapred --rows=20 scanRange100 1");
            assertEquals(0, range.code(), range.err());
            assertTrue(range.out().contains("Test : RandomScanWithRange100Test, Thread : TestClient-0\n"), range.out());
            assertTrue(range.out().contains("Num measures (latency) : 20\n"), "one measure per range: " + range.out());
            assertTrue(range.out().contains("[RandomScanWithRange100Test] Summary of timings"), range.out());

            // --sampleRate (HBase PE's randomRead only): every 10th row number of a client issues a get
            Run sampled = pe(conf, "--nomapred --rows=300 --sampleRate=0.1 --report=" + dir.resolve("rr") + " randomRead 2");
            assertEquals(0, sampled.code(), sampled.err());
            assertTrue(sampled.out().contains("Num measures (latency) : 30\n"), "300 rows x 0.1: " + sampled.out());
            assertTrue(sampled.out().contains("at offset 300 for 300 rows"), "the summary names the client's rows as HBase PE does");
            String rr = Files.readString(dir.resolve("rr.json"));
            assertTrue(rr.contains("\"operations\": 60,") && rr.contains("\"rows\": 60,") && rr.contains("\"test\": \"RandomReadTest\""), rr);
            assertEquals(60, hlogCount(dir.resolve("rr.hlog")));

            // every command's JSON and interval log count what the summary measured
            Run reportedRange = pe(conf, "--nomapred --rows=20 --report=" + dir.resolve("sr") + " scanRange100 1");
            assertEquals(0, reportedRange.code(), reportedRange.err());
            assertTrue(Files.readString(dir.resolve("sr.json")).contains("\"test\": \"RandomScanWithRange100Test\""));
            assertEquals(20, hlogCount(dir.resolve("sr.hlog")));
            Run reportedScan = pe(conf, "--nomapred --rows=300 --report=" + dir.resolve("sc") + " scan 1");
            assertEquals(0, reportedScan.code(), reportedScan.err());
            assertTrue(Files.readString(dir.resolve("sc.json")).contains("\"command\": \"scan\""));
            assertEquals(300, hlogCount(dir.resolve("sc.hlog")));
            Run reportedInc = pe(conf, "--nomapred --rows=50 --table=Inc --report=" + dir.resolve("inc") + " increment 2");
            assertEquals(0, reportedInc.code(), reportedInc.err());
            String incJson = Files.readString(dir.resolve("inc.json"));
            assertTrue(incJson.contains("\"test\": \"IncrementTest\"") && incJson.contains("\"operations\": 100,"), incJson);
            assertEquals(100, hlogCount(dir.resolve("inc.hlog")));
            Run noWal = pe(conf, "--nomapred --rows=100 --valueSize=20 --writeToWAL=false --autoFlush=true --table=NoWal"
                + " --report=" + dir.resolve("nw") + " sequentialWrite 1");
            assertEquals(0, noWal.code(), noWal.err());
            assertTrue(Files.readString(dir.resolve("nw.json")).contains("\"args\": \"--nomapred --rows=100 --valueSize=20 --writeToWAL=false"));
            assertEquals(100, hlogCount(dir.resolve("nw.hlog")));
            try (Connection c = Connection.open(HOST, server.port())) {
                assertEquals(20, c.getTable("NoWal").get(PeData.rowKey(99)).getValue(PeData.FAMILY, PeData.QUALIFIER).length,
                    "--writeToWAL=false puts are still served");
            }
        } finally {
            server.stop();
        }
    }

    private static long hlogCount(Path hlog) throws Exception {
        return IntervalLogReader.read(hlog).stream().mapToLong(Histogram::getTotalCount).sum();
    }

    @Test
    void noServerIsARuntimeErrorWithOneLine() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Run r = pe(conf(Path.of("unused"), port), "--nomapred --rows=10 randomWrite 1");
        assertEquals(1, r.code());
        assertEquals("ERROR: no region server at " + HOST + ":" + port
            + " (connection refused); start one with bin/engine-daemon start regionserver\n", r.err());
    }
}
