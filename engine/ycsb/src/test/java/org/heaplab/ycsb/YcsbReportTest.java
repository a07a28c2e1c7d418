package org.heaplab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;
import org.heaplab.tools.IntervalLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report writer on YCSB outputs recorded from real runs (src/test/resources/recorded): workloada (4
 * threads, 8000 operations, all OK), "mixed" (a wrong column family: reads OK, every update failed) and the
 * INSERT log of lab 02's g1-tuned load (5000 rows; one insert took 271 ms on a busy machine, and the interval
 * before it has a header that announces a smaller range than its counts: the report once died reading it).
 */
class YcsbReportTest {
    @TempDir
    Path dir;

    private String recorded(String name) throws IOException {
        for (String suffix : List.of(".ycsb.json", ".ycsb-READ.hdr", ".ycsb-UPDATE.hdr", ".ycsb-UPDATE-FAILED.hdr",
            ".ycsb-CLEANUP.hdr", ".ycsb-INSERT.hdr")) {
            try (InputStream in = getClass().getResourceAsStream("/recorded/" + name + suffix)) {
                if (in != null) {
                    Files.copy(in, dir.resolve(name + suffix));
                }
            }
        }
        return dir.resolve(name).toString();
    }

    private static long exported(Map<String, Map<String, Double>> export, String op) {
        return export.get(op).get("Operations").longValue();
    }

    @Test
    void summaryAndMergedLogCountWhatYcsbCounted() throws Exception {
        String prefix = recorded("workloada");
        Map<String, Map<String, Double>> export = YcsbReport.readExport(Path.of(prefix + ".ycsb.json"));
        long reads = exported(export, "READ");
        long updates = exported(export, "UPDATE");
        YcsbReport.Outcome r = YcsbReport.write(prefix, "run", "workloada", "run -P workloada", 4);
        assertEquals(reads + updates, r.operations());
        assertEquals(0, r.failed());

        JsonNode json = new ObjectMapper().readTree(Path.of(prefix + ".json").toFile());
        assertEquals("ycsb", json.get("tool").asText());
        assertEquals("run", json.get("command").asText());
        assertEquals("workloada", json.get("test").asText());
        assertEquals(4, json.get("threads").asInt());
        assertEquals(reads + updates, json.get("operations").asLong());
        assertEquals(reads, json.get("ops").get("READ").get("operations").asLong());
        assertEquals(updates, json.get("ops").get("UPDATE").get("operations").asLong());
        assertNull(json.get("ops").get("CLEANUP"), "CLEANUP is not a workload operation");
        assertNull(json.get("failed"));
        assertEquals(export.get("OVERALL").get("Throughput(ops/sec)"), json.get("throughput").asDouble(), 0.001);
        assertEquals(export.get("READ").get("MaxLatency(us)").longValue(), json.get("ops").get("READ").get("latency_us").get("max").asLong());
        assertEquals(Math.max(export.get("READ").get("MaxLatency(us)"), export.get("UPDATE").get("MaxLatency(us)")),
            json.get("latency_us").get("max").asDouble(), 0.001);
        assertEquals("workloada.hlog", json.get("hlog").asText());

        List<Histogram> merged = IntervalLogReader.read(Path.of(prefix + ".hlog"));
        assertEquals(reads + updates, merged.stream().mapToLong(Histogram::getTotalCount).sum());
        List<Histogram> perOp = new ArrayList<>(IntervalLogReader.read(Path.of(prefix + ".ycsb-READ.hdr")));
        perOp.addAll(IntervalLogReader.read(Path.of(prefix + ".ycsb-UPDATE.hdr")));
        int ticks = perOp.size() / 2; // both operations' logs have an interval per status tick, and the export's last one
        assertTrue(merged.size() == ticks || merged.size() == ticks - 1,
            "one merged interval per tick (the export's last interval joins the last tick when it comes within 200 ms): "
                + merged.size() + " of " + ticks);
        for (int i = 1; i < merged.size(); i++) {
            assertTrue(merged.get(i).getStartTimeStamp() >= merged.get(i - 1).getEndTimeStamp() - 1, "intervals in time order");
            assertTrue(merged.get(i).getEndTimeStamp() - merged.get(i).getStartTimeStamp() <= 1500, "about 1 s each");
        }
        assertEquals(json.get("start_epoch_ms").asLong(), merged.get(0).getStartTimeStamp());
        assertEquals(json.get("end_epoch_ms").asLong(), merged.get(merged.size() - 1).getEndTimeStamp());
    }

    @Test
    void failedOperationsAreCountedApart() throws Exception {
        String prefix = recorded("mixed");
        Map<String, Map<String, Double>> export = YcsbReport.readExport(Path.of(prefix + ".ycsb.json"));
        long failed = exported(export, "UPDATE-FAILED");
        YcsbReport.Outcome r = YcsbReport.write(prefix, "run", "workloada", "", 1);
        assertTrue(failed > 0);
        assertEquals(failed, r.failed());
        assertEquals(exported(export, "READ") + failed, r.operations(), "failed calls are measured operations too");
        JsonNode json = new ObjectMapper().readTree(Path.of(prefix + ".json").toFile());
        assertEquals(failed, json.get("failed").get("UPDATE-FAILED").asLong());
        assertFalse(json.get("ops").has("UPDATE"), "an operation whose every call failed has no ops entry");
    }

    @Test
    void aMissingExportIsOneLine() {
        IOException e = assertThrows(IOException.class, () -> YcsbReport.write(dir.resolve("none").toString(), "run", "a", "", 1));
        assertTrue(e.getMessage().startsWith("YCSB wrote no export"), e.getMessage());
    }

    @Test
    void operationKinds() {
        assertEquals(YcsbReport.Kind.COUNTED, YcsbReport.kind("READ"));
        assertEquals(YcsbReport.Kind.COUNTED, YcsbReport.kind("INCREMENT"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("READ-FAILED"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("READ-NOT_FOUND"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("INCREMENT-FAILED"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("READ-MODIFY-WRITE-FAILED"));
        assertEquals(YcsbReport.Kind.COMPOSITE, YcsbReport.kind("READ-MODIFY-WRITE"));
        assertEquals(YcsbReport.Kind.IGNORED, YcsbReport.kind("CLEANUP"));
        assertEquals(YcsbReport.Kind.IGNORED, YcsbReport.kind("Intended-READ"));
    }

    private static final String SLOW_LOAD = "g1-tuned-load";

    /** Per interval what the summary file holds: start, end, count, min, max, recorded buckets, bucket sum. */
    private static List<String> summary(List<Histogram> intervals) {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < intervals.size(); i++) {
            Histogram h = intervals.get(i);
            long buckets = 0;
            long sum = 0;
            for (HistogramIterationValue v : h.recordedValues()) {
                buckets++;
                sum += v.getCountAtValueIteratedTo() * v.getValueIteratedTo();
            }
            long min = h.getTotalCount() == 0 ? 0 : h.getMinValue();
            rows.add(i + "," + h.getStartTimeStamp() + "," + h.getEndTimeStamp() + "," + h.getTotalCount() + "," + min + ","
                + h.getMaxValue() + "," + buckets + "," + sum);
        }
        return rows;
    }

    @Test
    void theLoadWhoseSlowInsertKilledTheReportReadsWhole() throws Exception {
        Path log = Path.of(recorded(SLOW_LOAD) + ".ycsb-INSERT.hdr");
        try (HistogramLogReader theirs = new HistogramLogReader(log.toFile())) {
            theirs.nextIntervalHistogram();
            assertThrows(ArrayIndexOutOfBoundsException.class, theirs::nextIntervalHistogram, "HdrHistogram's reader fails here");
        }
        List<Histogram> intervals = IntervalLogReader.read(log);
        assertEquals(5000, intervals.stream().mapToLong(Histogram::getTotalCount).sum(), "the load inserted 5000 rows");
        List<String> maxColumn = Files.readAllLines(log).stream().filter(l -> l.matches("^[0-9.]+,.*")).map(l -> l.split(",")[2]).toList();
        assertEquals(maxColumn.size(), intervals.size(), "every interval line decoded");
        for (int i = 0; i < intervals.size(); i++) { // the writer's max column: seconds, 3 decimals
            assertEquals(Double.parseDouble(maxColumn.get(i)), intervals.get(i).getMaxValue() / 1e6, 0.0005 + 1e-9, "interval " + i);
        }
        assertEquals(271_871, intervals.get(2).getMaxValue(), "the 271 ms insert");
        List<String> expected;
        try (InputStream in = getClass().getResourceAsStream("/recorded/" + SLOW_LOAD + ".ycsb-INSERT.intervals.csv")) {
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("#")).skip(1).toList();
        }
        assertEquals(expected, summary(intervals), "the summary heaplab/tests compares Python's decode with");
    }

    /** A READ log as YCSB writes it (its recycling, auto-resizing Recorder): a second of small values, then one with a 30 s stall. */
    private static void stalledReads(Path file) throws IOException {
        Recorder recorder = new Recorder(3);
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
            HistogramLogWriter writer = new HistogramLogWriter(out);
            writer.outputStartTime(1_795_921_115_628L);
            writer.setBaseTime(1_795_921_115_628L);
            writer.outputLegend();
            Histogram recycled = null;
            for (int k = 0; k < 2; k++) {
                for (long v = 200; v < 700; v++) {
                    recorder.recordValue(v);
                }
                if (k == 1) {
                    recorder.recordValue(30_000_000L);
                }
                recycled = recorder.getIntervalHistogram(recycled);
                recycled.setStartTimeStamp(1_795_921_115_678L + 1000L * k);
                recycled.setEndTimeStamp(1_795_921_116_678L + 1000L * k);
                writer.outputIntervalHistogram(recycled);
            }
        }
    }

    @Test
    void aReportIsWrittenOnTheSlowLoadAndAStalledRead() throws Exception {
        String prefix = recorded(SLOW_LOAD);
        stalledReads(Path.of(prefix + ".ycsb-READ.hdr"));
        Files.writeString(Path.of(prefix + ".ycsb.json"), "[{\"metric\": \"OVERALL\", \"measurement\": \"RunTime(ms)\", \"value\": 3764},"
            + " {\"metric\": \"INSERT\", \"measurement\": \"Operations\", \"value\": 5000},"
            + " {\"metric\": \"READ\", \"measurement\": \"Operations\", \"value\": 1001}]");
        YcsbReport.Outcome r = YcsbReport.write(prefix, "load", "workloada", "", 8);
        assertEquals(5000 + 1001, r.operations());

        JsonNode json = new ObjectMapper().readTree(Path.of(prefix + ".json").toFile());
        assertEquals(5000, json.get("ops").get("INSERT").get("operations").asLong());
        assertEquals(271_871, json.get("ops").get("INSERT").get("latency_us").get("max").asLong());
        JsonNode reads = json.get("ops").get("READ").get("latency_us");
        Histogram stall = new Histogram(3);
        stall.recordValue(30_000_000L);
        assertEquals(stall.getMaxValue(), reads.get("max").asLong(), "the stall is the reads' max");
        assertTrue(reads.get("p99").asDouble() < 700, "one slow read in 1001 is above p99: " + reads.get("p99"));
        assertEquals(stall.getMaxValue(), json.get("latency_us").get("max").asLong());
        List<Histogram> merged = IntervalLogReader.read(Path.of(prefix + ".hlog"));
        assertEquals(5000 + 1001, merged.stream().mapToLong(Histogram::getTotalCount).sum(), "the merged log holds every operation");
    }
}
