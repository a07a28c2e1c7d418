package org.heaplab.ycsb;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;
import org.heaplab.core.util.JsonWriter;
import org.heaplab.tools.IntervalLogReader;
import org.heaplab.tools.PeReport;

/**
 * The files of {@code bin/engine ycsb --report=PREFIX} (docs/contracts.md sections 2-3).
 *
 * <p>YCSB itself writes, with the properties of {@link #clientProperties}: one HdrHistogram interval log
 * per measured operation ({@code PREFIX.ycsb-READ.hdr}, {@code PREFIX.ycsb-UPDATE.hdr}, ...; one interval
 * per status tick, forced to 1 s) and its JSON export ({@code PREFIX.ycsb.json}). From those, after YCSB
 * finished, {@link #write} makes:
 * <ul>
 *   <li>{@code PREFIX.hlog}: ONE interval log of every counted operation, the intervals of all operation logs
 *       that end in the same second added together (YCSB's status thread closes every operation's interval at
 *       the same tick), microseconds, the format heaplab/hlog.py reads for pe;</li>
 *   <li>{@code PREFIX.json}: the client summary (format 1, {@code "tool": "ycsb"}), with {@code ops} per
 *       operation, {@code failed} per failed measurement and {@code server_metrics} (every region server's
 *       METRICS report before the first and after the last operation, {@link YcsbServerWindow}).</li>
 * </ul>
 * Counted operations: every measured DB call and INCREMENT, failed ones included (YCSB measures them as
 * READ-FAILED etc.). Not counted: CLEANUP (one per thread, not workload), READ-MODIFY-WRITE (its READ and
 * UPDATE are measured on their own; it is listed in {@code ops}), and the Intended-* twins.
 */
final class YcsbReport {
    static final int FORMAT = 1;
    private static final List<String> KNOWN_OPS = List.of("READ-MODIFY-WRITE", "READ", "UPDATE", "INSERT", "SCAN", "DELETE",
        IncrementWorkload.OPERATION);

    enum Kind { COUNTED, FAILED, COMPOSITE, IGNORED }

    /** What the launcher needs to know after writing the files. */
    record Outcome(long operations, long failed) {
    }

    private YcsbReport() {
    }

    /** The YCSB properties that make it write what {@link #write} reads. */
    static Map<String, String> clientProperties(String prefix) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("measurementtype", "hdrhistogram");
        p.put("hdrhistogram.fileoutput", "true");
        p.put("hdrhistogram.output.path", prefix + ".ycsb-");
        p.put("hdrhistogram.percentiles", "50,95,99,99.9");
        p.put("exporter", "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter");
        p.put("exportfile", prefix + ".ycsb.json");
        p.put("status.interval", "1");
        return p;
    }

    static Path exportFile(String prefix) {
        return Path.of(prefix + ".ycsb.json");
    }

    static Kind kind(String name) {
        if (name.equals("CLEANUP") || name.startsWith("Intended-")) {
            return Kind.IGNORED;
        }
        if (name.equals("READ-MODIFY-WRITE")) {
            return Kind.COMPOSITE;
        }
        for (String op : KNOWN_OPS) {
            if (name.startsWith(op + "-")) {
                return Kind.FAILED; // READ-FAILED, or READ-NOT_FOUND with reportlatencyforeacherror
            }
        }
        return name.endsWith("-FAILED") ? Kind.FAILED : Kind.COUNTED;
    }

    /**
     * Reads YCSB's export and interval logs of {@code prefix} and writes PREFIX.hlog and PREFIX.json.
     *
     * @throws IOException when YCSB's export is missing or unreadable (YCSB did not finish)
     */
    static Outcome write(String prefix, String command, String test, String args, int threads) throws IOException {
        return write(prefix, command, test, args, threads, null);
    }

    /** As above, with the {@code server_metrics} array ({@link YcsbServerWindow}) when not null. */
    static Outcome write(String prefix, String command, String test, String args, int threads, List<JsonWriter> serverMetrics)
        throws IOException {
        Map<String, Map<String, Double>> export = readExport(exportFile(prefix));
        Map<String, Double> overall = export.getOrDefault("OVERALL", Map.of());
        Histogram all = new Histogram(3);
        JsonWriter ops = new JsonWriter();
        JsonWriter failed = new JsonWriter();
        boolean anyFailed = false;
        long failedCount = 0;
        List<Histogram> counted = new ArrayList<>();
        for (String name : export.keySet()) {
            Kind kind = kind(name);
            if (kind == Kind.IGNORED || !export.get(name).containsKey("Operations")) {
                continue;
            }
            List<Histogram> intervals = IntervalLogReader.read(Path.of(prefix + ".ycsb-" + name + ".hdr"));
            Histogram total = new Histogram(3);
            intervals.forEach(total::add);
            switch (kind) {
                case COUNTED, COMPOSITE -> {
                    if (total.getTotalCount() > 0) { // YCSB also lists an operation whose every call failed, with 0
                        ops.put(name, new JsonWriter().put("operations", total.getTotalCount())
                            .put("latency_us", PeReport.latencyJson(total)));
                    }
                }
                case FAILED -> {
                    failed.put(name, total.getTotalCount());
                    anyFailed = true;
                    failedCount += total.getTotalCount();
                }
                default -> {
                }
            }
            if (kind == Kind.COUNTED || kind == Kind.FAILED) {
                counted.addAll(intervals);
                all.add(total);
            }
        }
        long[] window = writeMerged(counted, Path.of(prefix + ".hlog"));
        JsonWriter json = new JsonWriter()
            .put("format", FORMAT)
            .put("tool", "ycsb")
            .put("command", command)
            .put("args", args)
            .put("test", test)
            .put("threads", threads)
            .put("operations", all.getTotalCount())
            .put("rows", all.getTotalCount())
            .put("duration_ms", overall.getOrDefault("RunTime(ms)", 0.0))
            .put("throughput", round3(overall.getOrDefault("Throughput(ops/sec)", 0.0)))
            .put("latency_us", PeReport.latencyJson(all))
            .put("start_epoch_ms", window[0])
            .put("end_epoch_ms", window[1])
            .put("hlog", Path.of(prefix + ".hlog").getFileName().toString())
            .put("ycsb_export", exportFile(prefix).getFileName().toString())
            .put("ops", ops);
        if (anyFailed) {
            json.put("failed", failed);
        }
        if (serverMetrics != null) {
            json.put("server_metrics", serverMetrics);
        }
        Files.writeString(Path.of(prefix + ".json"), json + "\n", StandardCharsets.UTF_8);
        return new Outcome(all.getTotalCount(), failedCount);
    }

    /** YCSB's JSON array export as metric -> measurement -> value (numbers only), in file order. */
    static Map<String, Map<String, Double>> readExport(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("YCSB wrote no export " + file + " (it stopped before the end; see its output above)");
        }
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        Map<String, Map<String, Double>> out = new LinkedHashMap<>();
        for (JsonNode row : root) {
            JsonNode v = row.get("value");
            if (v != null && v.isNumber()) {
                out.computeIfAbsent(row.get("metric").asText(), k -> new LinkedHashMap<>())
                    .put(row.get("measurement").asText(), v.asDouble());
            }
        }
        return out;
    }

    /** Intervals of different operations that end closer than this were closed by the same status tick. */
    static final long SAME_TICK_MS = 200;

    /**
     * Writes the intervals of all operations as one log and returns its {start, end} in epoch ms. YCSB's
     * status thread closes the interval of every operation at each tick (one per second here), and the
     * export closes the last ones: intervals whose ends lie within {@link #SAME_TICK_MS} of the tick's
     * first end are added into one. (The ticks follow the status thread's clock, not the first
     * operation's, so grouping by the end time's second would mix two ticks.)
     */
    static long[] writeMerged(List<Histogram> intervals, Path file) throws IOException {
        long t0 = intervals.stream().mapToLong(Histogram::getStartTimeStamp).min().orElse(System.currentTimeMillis());
        List<Histogram> sorted = new ArrayList<>(intervals);
        sorted.sort(Comparator.comparingLong(Histogram::getEndTimeStamp));
        List<Histogram> ticks = new ArrayList<>();
        long tickEnd = Long.MIN_VALUE;
        Histogram merged = null;
        for (Histogram h : sorted) {
            if (merged == null || h.getEndTimeStamp() - tickEnd > SAME_TICK_MS) {
                merged = new Histogram(3);
                merged.setStartTimeStamp(h.getStartTimeStamp());
                merged.setEndTimeStamp(h.getEndTimeStamp());
                tickEnd = h.getEndTimeStamp();
                ticks.add(merged);
            }
            merged.add(h);
            merged.setStartTimeStamp(Math.min(merged.getStartTimeStamp(), h.getStartTimeStamp()));
            merged.setEndTimeStamp(Math.max(merged.getEndTimeStamp(), h.getEndTimeStamp()));
        }
        long end = t0;
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
            HistogramLogWriter writer = new HistogramLogWriter(out);
            writer.outputLogFormatVersion();
            writer.outputComment("heaplab ycsb latencies of all operations in microseconds, 1 s intervals");
            writer.outputStartTime(t0);
            writer.setBaseTime(t0);
            writer.outputLegend();
            long previousEnd = t0;
            for (Histogram h : ticks) {
                // an operation's first interval starts when YCSB first measured it: the tick starts where the last one ended
                long start = Math.max(previousEnd, Math.min(h.getStartTimeStamp(), h.getEndTimeStamp()));
                writer.outputIntervalHistogram((start - t0) / 1000.0, (h.getEndTimeStamp() - t0) / 1000.0, h, 1.0);
                previousEnd = h.getEndTimeStamp();
                end = Math.max(end, h.getEndTimeStamp());
            }
        }
        return new long[] {t0, end};
    }

    /** YCSB's text exporter lines ({@code [READ], Operations, 1000}) of the export, for stdout. */
    static void printText(Path export, PrintStream out) throws IOException {
        JsonNode root = new ObjectMapper().readTree(export.toFile());
        for (JsonNode row : root) {
            out.println("[" + row.get("metric").asText() + "], " + row.get("measurement").asText() + ", " + row.get("value").asText());
        }
    }

    private static double round3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
