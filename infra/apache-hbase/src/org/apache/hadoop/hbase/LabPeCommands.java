package org.apache.hadoop.hbase;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.UniformReservoir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Paths;
import org.apache.hadoop.hbase.client.Connection;
import org.heaplab.tools.IntervalLog;

/*
 * HBase's own PerformanceEvaluation commands, unchanged, except that every latency PE measures is also
 * recorded into an HdrHistogram interval log: the engine pe's PREFIX.hlog, one histogram per second (or per
 * -Dheaplab.hlog.interval.ms, which bin/hbase-lab pe sets from the engine pe's --reportInterval=MS).
 * HBase PE keeps one histogram per thread and prints their percentiles; with the log heaplab merges the
 * threads' latencies into one histogram and draws the per-second timeline the same way for both servers.
 *
 * PE runs a command given as a class name ("custom command"). These classes live in PE's package because
 * its test classes are package-private, and there is one per command, alike but for the class it extends,
 * because PE creates a command from its class (its (Connection, TestOptions, Status) constructor). bin/hbase-lab pe --report=PREFIX swaps the command word
 * (randomWrite -> org.apache.hadoop.hbase.LabRandomWrite) and sets -Dheaplab.hlog=PREFIX.hlog; without
 * the property the commands behave exactly as PE's own.
 */

/** The one interval log of this PE process, shared by every client thread (IntervalLog is thread-safe). */
final class LabLatencyLog {
    static final String PROPERTY = "heaplab.hlog";
    static final String INTERVAL_PROPERTY = "heaplab.hlog.interval.ms";
    private static IntervalLog log;

    private LabLatencyLog() {}

    /**
     * A latency histogram like PE's own (a uniform reservoir of 512,000 samples) that also records into
     * the interval log. PE updates it with microseconds, after its --measureAfter warm-up operations.
     */
    static Histogram histogram() {
        IntervalLog target = start();
        if (target == null) {
            return new Histogram(new UniformReservoir(512_000));
        }
        return new Histogram(new UniformReservoir(512_000)) {
            @Override
            public void update(long latencyUs) {
                super.update(latencyUs);
                target.record(latencyUs);
            }
        };
    }

    /** Starts the log when the first client thread sets up: its base time is the test's start. */
    private static synchronized IntervalLog start() {
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
}

/** PE's randomWrite. */
class LabRandomWrite extends PerformanceEvaluation.RandomWriteTest {
    LabRandomWrite(Connection con, PerformanceEvaluation.TestOptions options,
            PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        latencyHistogram = LabLatencyLog.histogram();
    }
}

/** PE's sequentialWrite. */
class LabSequentialWrite extends PerformanceEvaluation.SequentialWriteTest {
    LabSequentialWrite(Connection con, PerformanceEvaluation.TestOptions options,
            PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        latencyHistogram = LabLatencyLog.histogram();
    }
}

/** PE's randomRead. */
class LabRandomRead extends PerformanceEvaluation.RandomReadTest {
    LabRandomRead(Connection con, PerformanceEvaluation.TestOptions options,
            PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        latencyHistogram = LabLatencyLog.histogram();
    }
}

/** PE's scan. */
class LabScan extends PerformanceEvaluation.ScanTest {
    LabScan(Connection con, PerformanceEvaluation.TestOptions options,
            PerformanceEvaluation.Status status) {
        super(con, options, status);
    }

    @Override
    void testSetup() throws IOException {
        super.testSetup();
        latencyHistogram = LabLatencyLog.histogram();
    }
}
