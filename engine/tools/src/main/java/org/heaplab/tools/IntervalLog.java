package org.heaplab.tools;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

/**
 * Records every measured latency (microseconds) from all client threads and writes an HdrHistogram
 * interval log (PREFIX.hlog): one interval histogram per second (or per {@code intervalMs}, pe's
 * --reportInterval and the hiccup meter), written by HdrHistogram's HistogramLogWriter, timestamps
 * relative to the run's start (the log's base time). The max column is in microseconds too (value
 * unit ratio 1).
 *
 * <p>Thread safety: {@link #record} may be called by any thread (Recorder is wait-free for writers);
 * the log is written by one scheduler thread, and by {@link #close()} after that thread stopped.
 */
public final class IntervalLog implements Closeable {
    public static final long HIGHEST_TRACKABLE_US = 3_600_000_000L;
    public static final long DEFAULT_INTERVAL_MS = 1000;

    private final Recorder recorder = new Recorder(HIGHEST_TRACKABLE_US, 3);
    private final PrintStream out;
    private final HistogramLogWriter writer;
    private final ScheduledExecutorService ticker;
    private Histogram recycled;
    private final AtomicBoolean closed = new AtomicBoolean();

    private IntervalLog(Path file, long startEpochMs, long intervalMs, String what) throws FileNotFoundException {
        this.out = new PrintStream(file.toFile());
        this.writer = new HistogramLogWriter(out);
        writer.outputLogFormatVersion();
        writer.outputComment("heaplab " + what + " in microseconds, "
            + (intervalMs % 1000 == 0 ? intervalMs / 1000 + " s" : intervalMs + " ms") + " intervals");
        writer.outputStartTime(startEpochMs);
        writer.setBaseTime(startEpochMs);
        writer.outputLegend();
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pe-interval-log");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(this::writeInterval, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    /** Starts a log at {@code file} of pe's latencies, 1 s intervals timed from {@code startEpochMs}. */
    public static IntervalLog start(Path file, long startEpochMs) throws IOException {
        return start(file, startEpochMs, DEFAULT_INTERVAL_MS, "pe latencies");
    }

    /**
     * Starts a log at {@code file} whose intervals of {@code intervalMs} are timed from {@code startEpochMs};
     * {@code what} names the values in the log's comment line.
     */
    public static IntervalLog start(Path file, long startEpochMs, long intervalMs, String what) throws IOException {
        if (intervalMs < 1) {
            throw new IllegalArgumentException("interval must be at least 1 ms, got " + intervalMs);
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return new IntervalLog(file, startEpochMs, intervalMs, what);
    }

    public void record(long latencyUs) {
        recorder.recordValue(Math.min(latencyUs, HIGHEST_TRACKABLE_US));
    }

    private synchronized void writeInterval() {
        Histogram h = recorder.getIntervalHistogram(recycled);
        writer.outputIntervalHistogram(h.getStartTimeStamp() / 1000.0 - writerBase(),
            h.getEndTimeStamp() / 1000.0 - writerBase(), h, 1.0);
        recycled = h;
    }

    private double writerBase() {
        return writer.getBaseTime() / 1000.0;
    }

    /** Writes the last (partial) interval and closes the file; a second call does nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ticker.shutdown();
        try {
            ticker.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writeInterval();
        out.close();
    }
}
