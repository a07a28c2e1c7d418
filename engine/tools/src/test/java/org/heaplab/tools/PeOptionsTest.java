package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.heaplab.core.io.Compression;
import org.junit.jupiter.api.Test;

class PeOptionsTest {
    private static PeOptions parse(String line) throws UsageException {
        return PeOptions.parse(List.of(line.split(" ")));
    }

    private static String error(String line) {
        return assertThrows(UsageException.class, () -> parse(line)).getMessage();
    }

    @Test
    void defaultsAreHBasePe() throws Exception {
        PeOptions o = parse("randomWrite 3");
        assertFalse(o.nomapred());
        assertFalse(o.oneCon());
        assertEquals(1000, o.valueSize());
        assertEquals(1_048_576, o.rows());
        assertFalse(o.autoFlush());
        assertEquals(0, o.presplit());
        assertEquals(0, o.multiPut());
        assertEquals("TestTable", o.table());
        assertNull(o.compress());
        assertNull(o.report());
        assertEquals(PeCommand.RANDOM_WRITE, o.command());
        assertEquals(3, o.clients());
        assertTrue(o.writeToWAL());
    }

    @Test
    void readCommandsAndFamilyFlagsParse() throws Exception {
        PeOptions o = parse("--nomapred --blockEncoding=ROW_INDEX_V1 --bloomFilter=none --inmemory=true --caching=7 scanRange100 2");
        assertEquals(PeCommand.SCAN_RANGE_100, o.command());
        assertEquals(org.heaplab.core.io.DataBlockEncoding.ROW_INDEX_V1, o.blockEncoding());
        assertEquals(org.heaplab.core.io.BloomType.NONE, o.bloomFilter());
        assertTrue(o.inMemory());
        assertEquals(7, o.caching());
        assertEquals(30, parse("scan 1").caching(), "HBase PE's default caching");
        assertNull(parse("scan 1").blockEncoding());
        assertEquals("SequentialReadTest", parse("sequentialRead 1").command().testName());
        assertEquals("ScanTest", parse("scan 1").command().testName());
        assertEquals("RandomScanWithRange100Test", parse("scanRange100 1").command().testName());
        assertEquals("IncrementTest", parse("increment 1").command().testName());
        assertTrue(parse("increment 1").command().createsTable());
        assertFalse(parse("increment 1").command().isWrite(), "no buffered mutator for increments");
        assertEquals("--blockEncoding: data block encoding 'FAST_DIFF' is not supported by this engine; supported: NONE, DIFF, ROW_INDEX_V1",
            error("--blockEncoding=FAST_DIFF randomRead 1"));
        assertEquals("--bloomFilter: bloom filter type 'ROWCOL' is not supported by this engine; supported: NONE, ROW",
            error("--bloomFilter=ROWCOL randomRead 1"));
        assertEquals("--caching must be a positive integer, got '0'", error("--caching=0 scan 1"));
        assertEquals("--inmemory must be true or false, got 'maybe'", error("--inmemory=maybe scan 1"));
    }

    @Test
    void everyFlagParses() throws Exception {
        PeOptions o = parse("--nomapred --oneCon=true --valueSize=200 --rows=2000 --autoFlush=true --presplit=4"
            + " --multiPut=100 --table=T1 --compress=snappy --writeToWAL=false --report=out/single_put-h1 sequentialWrite 4");
        assertFalse(o.writeToWAL());
        assertTrue(o.nomapred());
        assertTrue(o.oneCon());
        assertEquals(200, o.valueSize());
        assertEquals(2000, o.rows());
        assertTrue(o.autoFlush());
        assertEquals(4, o.presplit());
        assertEquals(100, o.multiPut());
        assertEquals("T1", o.table());
        assertEquals(Compression.SNAPPY, o.compress());
        assertEquals("out/single_put-h1", o.report());
        assertEquals(PeCommand.SEQUENTIAL_WRITE, o.command());
        assertEquals(4, o.clients());
        assertEquals(8000, o.totalRows());
        assertTrue(o.args().startsWith("--nomapred --oneCon=true"));
        assertEquals(PeCommand.RANDOM_READ, parse("--oneCon=false --autoFlush=false randomRead 1").command());
    }

    @Test
    void userErrorsNameTheFlag() {
        assertEquals("unknown flag --bogus", error("--bogus=1 randomWrite 1"));
        assertTrue(error("-x randomWrite 1").contains("-x"));
        assertTrue(error("--compress=LZO randomWrite 1").startsWith("--compress: compression codec 'LZO' is not supported"));
        assertEquals("--rows must be a positive integer, got 'abc'", error("--rows=abc randomWrite 1"));
        assertEquals("--valueSize must be a positive integer, got '0'", error("--valueSize=0 randomWrite 1"));
        assertTrue(error("--presplit=-1 randomWrite 1").startsWith("--presplit"));
        assertEquals("--oneCon must be true or false, got 'yes'", error("--oneCon=yes randomWrite 1"));
        assertTrue(error("--autoFlush randomWrite 1").startsWith("--autoFlush needs a value"));
        assertTrue(error("--nomapred=true randomWrite 1").startsWith("--nomapred takes no value"));
        assertEquals("--multiPut requires --autoFlush=true (as in HBase PE)", error("--multiPut=10 randomWrite 1"));
        assertTrue(error("--table=bad/name randomWrite 1").startsWith("--table"));
        assertTrue(error("--presplit=10 --rows=2 randomWrite 1").startsWith("--presplit=10 exceeds"));
    }

    @Test
    void commandAndClientsAreChecked() {
        assertTrue(error("--nomapred").startsWith("missing command"));
        assertTrue(error("filterScan 1").startsWith("unknown command 'filterScan'"));
        assertEquals("missing <nclients> after randomWrite", error("randomWrite"));
        assertTrue(error("randomWrite zero").startsWith("nclients must be a positive integer"));
        assertTrue(error("randomWrite 0").startsWith("nclients must be a positive integer"));
        assertTrue(error("randomWrite 1 extra").startsWith("unexpected argument 'extra'"));
    }

    @Test
    void usageErrorsExitTwoWithOneErrorLineAndNoStackTrace() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PerformanceEvaluation.run(new String[] {"--compress=LZO", "randomWrite", "1"},
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        String[] lines = err.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals(2, lines.length);
        assertTrue(lines[0].startsWith("ERROR: --compress: compression codec 'LZO'"), lines[0]);
        assertTrue(lines[1].startsWith("Usage: bin/engine pe"), lines[1]);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void sampleRateFollowsHBasePe() throws Exception {
        assertEquals(1.0, parse("randomRead 1").sampleRate());
        assertEquals(1, parse("randomRead 1").everyN());
        PeOptions o = parse("--rows=1000 --sampleRate=0.1 randomRead 3");
        assertEquals(10, o.everyN(), "HBase PE: everyN = (int) (1 / sampleRate)");
        assertEquals(100, o.sampledRows(0));
        assertEquals(100, o.sampledRows(1000));
        assertEquals(50, parse("--rows=100 --sampleRate=0.34 randomRead 1").sampledRows(0), "everyN = (int) (1 / 0.34) = 2");
        assertEquals(0, parse("--rows=3 --sampleRate=0.1 randomRead 2").sampledRows(3), "rows 3..5 hold no multiple of 10");
    }

    @Test
    void sampleRateIsCheckedAndRandomReadOnly() {
        assertEquals("--sampleRate must be a number with 0 < F <= 1, got '0'", error("--sampleRate=0 randomRead 1"));
        assertEquals("--sampleRate must be a number with 0 < F <= 1, got '1.5'", error("--sampleRate=1.5 randomRead 1"));
        assertEquals("--sampleRate must be a number with 0 < F <= 1, got 'x'", error("--sampleRate=x randomRead 1"));
        assertEquals("--sampleRate is supported by randomRead only (as in HBase PE), not by scan",
            error("--sampleRate=0.5 scan 1"));
        assertDoesNotThrow(() -> parse("--sampleRate=1.0 scan 1"));
    }

    @Test
    void hbasePeFlagsTheEngineLacksAreUnsupportedNotUnknown() {
        assertEquals("unsupported flag --filterAll: HBase PE has it, this engine's pe does not", error("--filterAll randomRead 1"));
        for (String flag : new String[] {"--families=2", "--columns=3", "--inmemoryCompaction=BASIC", "--measureAfter=10",
            "--period=5", "--latency", "--traceRate=0.1", "--valueRandom", "--valueZipf", "--splitPolicy=x",
            "--randomSleep=3", "--cycles=2", "--replicas=2", "--bufferSize=10", "--size=2", "--addColumns=false",
            "--asyncPrefetch", "--multiGet=10", "--startRow=5"}) {
            String name = flag.split("=")[0];
            assertEquals("unsupported flag " + name + ": HBase PE has it, this engine's pe does not",
                error(flag + " randomRead 1"));
        }
        assertEquals("unknown flag --famillies", error("--famillies=2 randomRead 1"), "a typo stays unknown");
        assertDoesNotThrow(() -> parse("--bloomFilter=ROW randomRead 1"), "--bloomFilter stays supported");
    }

    @Test
    void unsupportedFlagExitsTwoWithOneErrorLine() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PerformanceEvaluation.run(new String[] {"--valueZipf", "randomWrite", "1"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8)
            .startsWith("ERROR: unsupported flag --valueZipf: HBase PE has it, this engine's pe does not\n"));
    }

    @Test
    void reportIntervalSetsTheIntervalLogsInterval() throws Exception {
        assertEquals(1000, PeOptions.parse(List.of("randomRead", "4")).reportIntervalMs());
        assertEquals(100, PeOptions.parse(List.of("--reportInterval=100", "randomRead", "4")).reportIntervalMs());
        UsageException e = assertThrows(UsageException.class,
            () -> PeOptions.parse(List.of("--reportInterval=5", "randomRead", "4")));
        assertEquals("--reportInterval must be 10..60000 ms, got 5", e.getMessage());
    }
}
