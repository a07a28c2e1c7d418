package org.heaplab.tools;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Formats PE's stdout exactly as HBase 2.x PerformanceEvaluation lays it out (hbase-internals.md
 * section 8): one block per client thread, then the run summary. Latencies are microseconds,
 * numbers #0.00. Pure functions of their inputs, so tests compare them line by line.
 */
public final class PeSummary {
    private PeSummary() {
    }

    /** What one client thread measured. */
    public record ClientResult(String thread, long durationMs, int startRow, int rows, Histogram latencyUs) {
    }

    static String fmt(double v) {
        DecimalFormat f = new DecimalFormat("#0.00", DecimalFormatSymbols.getInstance(Locale.ROOT));
        return f.format(v);
    }

    /** The block a client thread prints when it finishes. */
    public static String clientBlock(String testName, String testClassName, ClientResult r, int valueSize) {
        Histogram h = r.latencyUs();
        StringBuilder sb = new StringBuilder();
        sb.append("Test : ").append(testName).append(", Thread : ").append(r.thread()).append('\n');
        sb.append("Latency (us) : mean=").append(fmt(h.getMean()))
            .append(", min=").append(fmt(h.getTotalCount() == 0 ? 0 : h.getMinValue()))
            .append(", max=").append(fmt(h.getMaxValue()))
            .append(", stdDev=").append(fmt(h.getStdDeviation()))
            .append(", 50th=").append(fmt(h.getValueAtPercentile(50)))
            .append(", 75th=").append(fmt(h.getValueAtPercentile(75)))
            .append(", 95th=").append(fmt(h.getValueAtPercentile(95)))
            .append(", 99th=").append(fmt(h.getValueAtPercentile(99)))
            .append(", 99.9th=").append(fmt(h.getValueAtPercentile(99.9)))
            .append(", 99.99th=").append(fmt(h.getValueAtPercentile(99.99)))
            .append(", 99.999th=").append(fmt(h.getValueAtPercentile(99.999))).append('\n');
        sb.append("Num measures (latency) : ").append(h.getTotalCount()).append('\n');
        sb.append(line("Mean", h.getMean()));
        sb.append(line("Min", h.getTotalCount() == 0 ? 0 : h.getMinValue()));
        sb.append(line("Max", h.getMaxValue()));
        sb.append(line("StdDev", h.getStdDeviation()));
        sb.append(line("50th", h.getValueAtPercentile(50)));
        sb.append(line("75th", h.getValueAtPercentile(75)));
        sb.append(line("95th", h.getValueAtPercentile(95)));
        sb.append(line("99th", h.getValueAtPercentile(99)));
        sb.append(line("99.9th", h.getValueAtPercentile(99.9)));
        sb.append(line("99.99th", h.getValueAtPercentile(99.99)));
        sb.append(line("99.999th", h.getValueAtPercentile(99.999)));
        sb.append("Finished class ").append(testClassName).append(" in ").append(r.durationMs()).append("ms at offset ")
            .append(r.startRow()).append(" for ").append(r.rows()).append(" rows (")
            .append(mbps(r.rows(), r.durationMs(), valueSize)).append(")\n");
        sb.append("Finished ").append(r.thread()).append(" in ").append(r.durationMs()).append("ms over ")
            .append(r.rows()).append(" rows\n");
        return sb.toString();
    }

    /** "Label     = value": the label padded to 10 characters. */
    private static String line(String label, double value) {
        return String.format(Locale.ROOT, "%-10s= %s\n", label, fmt(value));
    }

    /** Throughput in MB/s of rows of key + family + qualifier + value bytes, as HBase PE reports it. */
    static String mbps(int rows, long durationMs, int valueSize) {
        double rowSize = PeData.ROW_LENGTH + valueSize + PeData.FAMILY.length + PeData.QUALIFIER.length;
        double mbps = durationMs == 0 ? 0 : rows * rowSize / durationMs * 1000.0 / (1024 * 1024);
        return fmt(mbps) + " MB/s";
    }

    /** The run summary after all threads finished. */
    public static String summary(String testName, List<ClientResult> results, int rowsPerClient) {
        long[] timings = results.stream().mapToLong(ClientResult::durationMs).toArray();
        StringBuilder sb = new StringBuilder();
        sb.append('[').append(testName).append("] Summary of timings (ms): ").append(Arrays.toString(timings)).append('\n');
        long[] sorted = timings.clone();
        Arrays.sort(sorted);
        long total = 0;
        double latency = 0;
        double tps = 0;
        for (ClientResult r : results) {
            total += r.durationMs();
            latency += r.latencyUs().getMean();
            tps += r.durationMs() == 0 ? 0 : rowsPerClient * 1.0 / r.durationMs();
        }
        int n = results.size();
        sb.append('[').append(testName).append(" duration ]\tMin: ").append(sorted[0]).append("ms\tMax: ")
            .append(sorted[n - 1]).append("ms\tAvg: ").append(total / n).append("ms\n");
        sb.append("[ Avg latency (us)]\t").append(Math.round(latency / n)).append('\n');
        sb.append("[ Avg TPS/QPS]\t").append(Math.round(tps * 1000)).append("\t row per second\n");
        return sb.toString();
    }
}
