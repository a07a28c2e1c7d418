package org.apache.hadoop.hbase;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Paths;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.util.ToolRunner;
import org.heaplab.tools.IntervalLog;

/*
 * HBase 1.4's own PerformanceEvaluation commands, unchanged, except that every latency PE measures is also
 * recorded into an HdrHistogram interval log (the engine pe's PREFIX.hlog, one histogram per second or per
 * -Dheaplab.hlog.interval.ms, which bin/hbase-lab pe sets from --reportInterval=MS), as
 * the 2.6 LabPeCommands do (infra/apache-hbase/src).
 *
 * PE 1.4 differs from 2.6 in two ways that shape this file: it runs only the commands of its own table (no
 * class name as a command), so LabPeCommands' main puts these classes in that table under PE's own
 * words (randomWrite, sequentialWrite, randomRead, scan) before PE parses its arguments; and its latency
 * histogram is a private field, so each class times the row PE times (testRow, which PE's testTimed
 * brackets with System.nanoTime) and records the same microseconds. PE 1.4 has no --measureAfter: every
 * row it measures is recorded, and with --multiGet only the row that sends the batch, as PE does.
 * bin/hbase-lab pe --report=PREFIX runs LabPeCommands (as PE's main) with -Dheaplab.hlog=PREFIX.hlog.
 */

/** PerformanceEvaluation's main with the Lab commands registered under PE's own command words. */
public final class LabPeCommands {
    private LabPeCommands() {}

    public static void main(String[] args) throws Exception {
        PerformanceEvaluation.addCommandDescriptor(LabRandomWrite.class, "randomWrite", "Run random write test (interval log)");
        PerformanceEvaluation.addCommandDescriptor(LabSequentialWrite.class, "sequentialWrite",
            "Run sequential write test (interval log)");
        PerformanceEvaluation.addCommandDescriptor(LabRandomRead.class, "randomRead", "Run random read test (interval log)");
        PerformanceEvaluation.addCommandDescriptor(LabScan.class, "scan", "Run scan test (interval log)");
        System.exit(ToolRunner.run(new PerformanceEvaluation(HBaseConfiguration.create()), args));
    }
}

/** The one interval log of this PE process, shared by every client thread (IntervalLog is thread-safe). */
final class LabLatencyLog {
    static final String PROPERTY = "heaplab.hlog";
    static final String INTERVAL_PROPERTY = "heaplab.hlog.interval.ms";  // bin/hbase-lab pe --reportInterval=MS
    private static IntervalLog log;

    private LabLatencyLog() {}

    /** Starts the log when the first client thread sets up: its base time is the test's start. */
    static synchronized IntervalLog get() {
        String path = System.getProperty(PROPERTY);
        if (path == null || path.isEmpty()) {
            return null;
        }
        if (log == null) {
            try {
                long intervalMs = Long.getLong(INTERVAL_PROPERTY, IntervalLog.DEFAULT_INTERVAL_MS);
                log = IntervalLog.start(Paths.get(path), System.currentTimeMillis(), intervalMs, "pe latencies");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the interval log " + path, e);
            }
            IntervalLog opened = log;
            // PE ends with System.exit: the hook writes the last (partial) second and closes the file.
            Runtime.getRuntime().addShutdownHook(new Thread(opened::close, "lab-hlog-close"));
        }
        return log;
    }

    /** Records one measured row's latency, from its start in nanoseconds (null log: nothing). */
    static void record(IntervalLog target, long startNanos) {
        if (target != null) {
            target.record((System.nanoTime() - startNanos) / 1000);
        }
    }
}

/** PE's randomWrite. */
class LabRandomWrite extends PerformanceEvaluation.RandomWriteTest {
    private IntervalLog log;

    LabRandomWrite(Connection con, PerformanceEvaluation.TestOptions options, PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        log = LabLatencyLog.get();
    }

    @Override
    void testRow(final int i) throws IOException {
        long start = System.nanoTime();
        super.testRow(i);
        LabLatencyLog.record(log, start);
    }
}

/** PE's sequentialWrite. */
class LabSequentialWrite extends PerformanceEvaluation.SequentialWriteTest {
    private IntervalLog log;

    LabSequentialWrite(Connection con, PerformanceEvaluation.TestOptions options, PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        log = LabLatencyLog.get();
    }

    @Override
    void testRow(final int i) throws IOException {
        long start = System.nanoTime();
        super.testRow(i);
        LabLatencyLog.record(log, start);
    }
}

/** PE's randomRead: with --multiGet=N only the row that sends the N gets is measured, as PE's testTimed does. */
class LabRandomRead extends PerformanceEvaluation.RandomReadTest {
    private IntervalLog log;

    LabRandomRead(Connection con, PerformanceEvaluation.TestOptions options, PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        log = LabLatencyLog.get();
    }

    @Override
    void testRow(final int i) throws IOException, InterruptedException {
        long start = System.nanoTime();
        super.testRow(i);
        if (opts.multiGet == 0 || (i - getStartRow() + 1) % opts.multiGet == 0) {
            LabLatencyLog.record(log, start);
        }
    }
}

/** PE's scan: each next(). */
class LabScan extends PerformanceEvaluation.ScanTest {
    private IntervalLog log;

    LabScan(Connection con, PerformanceEvaluation.TestOptions options, PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        log = LabLatencyLog.get();
    }

    @Override
    void testRow(final int i) throws IOException {
        long start = System.nanoTime();
        super.testRow(i);
        LabLatencyLog.record(log, start);
    }
}
