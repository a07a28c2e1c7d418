package org.heaplab.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.heaplab.core.util.JsonWriter;

/**
 * Writes PREFIX.json, the client summary of docs/contracts.md section 3.
 *
 * <p>Format history (the "format" field):
 * <ul>
 *   <li>1: first version (tool, command, args, test, threads, rows_per_thread, value_size, batch_size,
 *       operations, rows, duration_ms, throughput, latency_us{mean,min,p50,p75,p95,p99,p999,p9999,max},
 *       start_epoch_ms, end_epoch_ms, hlog)</li>
 *   <li>1, added: server_metrics (every region server's METRICS report right before the first and right
 *       after the last measured call, {@link ServerMetricsWindow}); absent when not taken</li>
 * </ul>
 */
public final class PeReport {
    public static final int FORMAT = 1;

    private PeReport() {
    }

    /**
     * @param all the latencies of every measured call of every thread, in microseconds
     * @param operations measured calls (a multiPut batch is one)
     * @param rows rows written or read
     */
    public static String json(PeOptions o, Histogram all, long operations, long rows, double durationMs,
                              long startEpochMs, long endEpochMs, String hlogName) {
        return json(o, all, operations, rows, durationMs, startEpochMs, endEpochMs, hlogName, null);
    }

    /** As above, with the {@code server_metrics} array when {@code serverMetrics} is not null. */
    public static String json(PeOptions o, Histogram all, long operations, long rows, double durationMs,
                              long startEpochMs, long endEpochMs, String hlogName, List<JsonWriter> serverMetrics) {
        JsonWriter latency = latencyJson(all);
        JsonWriter json = new JsonWriter()
            .put("format", FORMAT)
            .put("tool", "pe")
            .put("command", o.command().cliName())
            .put("args", o.args())
            .put("test", o.command().testName())
            .put("threads", o.clients())
            .put("rows_per_thread", o.rows())
            .put("value_size", o.valueSize())
            .put("batch_size", Math.max(1, o.multiPut()))
            .put("operations", operations)
            .put("rows", rows)
            .put("duration_ms", round3(durationMs))
            .put("throughput", round3(durationMs <= 0 ? 0 : rows * 1000.0 / durationMs))
            .put("latency_us", latency)
            .put("start_epoch_ms", startEpochMs)
            .put("end_epoch_ms", endEpochMs)
            .put("hlog", hlogName);
        if (serverMetrics != null) {
            json.put("server_metrics", serverMetrics);
        }
        return json.toString();
    }

    public static void write(Path file, String json) throws IOException {
        if (file.toAbsolutePath().getParent() != null) {
            Files.createDirectories(file.toAbsolutePath().getParent());
        }
        Files.writeString(file, json + "\n", StandardCharsets.UTF_8);
    }

    /** The summary's {@code latency_us} object (docs/contracts.md section 3), also used by the YCSB report. */
    public static JsonWriter latencyJson(Histogram h) {
        boolean empty = h.getTotalCount() == 0;
        return new JsonWriter()
            .put("mean", round3(empty ? 0 : h.getMean()))
            .put("min", empty ? 0 : h.getMinValue())
            .put("p50", h.getValueAtPercentile(50))
            .put("p75", h.getValueAtPercentile(75))
            .put("p95", h.getValueAtPercentile(95))
            .put("p99", h.getValueAtPercentile(99))
            .put("p999", h.getValueAtPercentile(99.9))
            .put("p9999", h.getValueAtPercentile(99.99))
            .put("max", h.getMaxValue());
    }

    private static double round3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
