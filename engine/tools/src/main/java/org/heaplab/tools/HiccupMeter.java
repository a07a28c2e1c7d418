package org.heaplab.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.heaplab.core.util.JsonWriter;

/**
 * {@code bin/engine hiccup}: a platform-stall meter, the control beside a measured server. One thread
 * asks to sleep {@code --resolution} ms (1) over and over and records by how much each sleep overran
 * (actual - asked, microseconds) into an HdrHistogram interval log, PREFIX.hlog, one histogram per
 * {@code --interval} ms (100). The process allocates next to nothing, so its own collector hardly runs:
 * what it records is what the machine did to an idle thread (the scheduler, other processes, the
 * hypervisor, a stalled page fault), the way jHiccup measures it. A GC or safepoint pause of this JVM
 * stops the thread too; its unified GC log (the launcher's gc-hiccup.log) tells such a stall apart.
 *
 * <p>It runs until {@code --duration} seconds have passed, or until it is stopped (SIGTERM: lab phases
 * run it in the background until the measured phase ends); either way the last partial interval is
 * written and PREFIX.json summarises the overruns (tool "hiccup"). Exit codes: 0 done, 2 usage error,
 * 143 after SIGTERM (the report is written by the shutdown hook first).
 */
public final class HiccupMeter {
    public static final String USAGE = "Usage: bin/engine hiccup --report=PREFIX [--duration=SECONDS (0: until"
        + " stopped, the default)] [--resolution=MS (the sleep asked for, 1..1000; default 1)]"
        + " [--interval=MS (the interval log's interval, 10..60000; default 100)]";
    public static final long DEFAULT_INTERVAL_MS = 100;

    /** How the meter sleeps; a test hook makes one sleep a known stall. */
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    record Options(String report, long durationS, long resolutionMs, long intervalMs) {
        static Options parse(List<String> argv) throws UsageException {
            String report = null;
            long duration = 0;
            long resolution = 1;
            long interval = DEFAULT_INTERVAL_MS;
            for (String a : argv) {
                int eq = a.indexOf('=');
                if (!a.startsWith("--") || eq < 0) {
                    throw new UsageException("unexpected argument '" + a + "' (flags look like --name=value)");
                }
                String flag = a.substring(0, eq);
                String value = a.substring(eq + 1);
                switch (flag) {
                    case "--report" -> report = value;
                    case "--duration" -> duration = number(flag, value, 0, 86_400);
                    case "--resolution" -> resolution = number(flag, value, 1, 1000);
                    case "--interval" -> interval = number(flag, value, 10, 60_000);
                    default -> throw new UsageException("unknown flag " + flag);
                }
            }
            if (report == null || report.isEmpty()) {
                throw new UsageException("--report=PREFIX is required: the meter's only output is its log");
            }
            return new Options(report, duration, resolution, interval);
        }

        private static long number(String flag, String value, long min, long max) throws UsageException {
            try {
                long n = Long.parseLong(value);
                if (n >= min && n <= max) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // fall through
            }
            throw new UsageException(flag + " must be a whole number from " + min + " to " + max + ", got '" + value + "'");
        }
    }

    private final Options options;
    private final Sleeper sleeper;
    private final Histogram all = new Histogram(IntervalLog.HIGHEST_TRACKABLE_US, 3);
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean stopping;
    private IntervalLog log;
    private long startEpochMs;

    HiccupMeter(Options options, Sleeper sleeper) {
        this.options = options;
        this.sleeper = sleeper;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.err));
    }

    static int run(String[] args, PrintStream err) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(USAGE);
            return 0;
        }
        Options o;
        try {
            o = Options.parse(Arrays.asList(args));
        } catch (UsageException e) {
            err.println("ERROR: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        HiccupMeter meter = new HiccupMeter(o, Thread::sleep);
        // SIGTERM (the playbook's stop): end the loop, write the last interval and the summary, then exit.
        Runtime.getRuntime().addShutdownHook(new Thread(meter::stopAndWait, "hiccup-stop"));
        try {
            meter.measure();
        } catch (IOException e) {
            err.println("ERROR: cannot write " + o.report() + ".hlog / .json: " + e.getMessage());
            return 1;
        }
        return 0;
    }

    /** Measures until the duration has passed or {@link #stop} is called, then writes PREFIX.json. */
    void measure() throws IOException {
        startEpochMs = System.currentTimeMillis();
        log = IntervalLog.start(Path.of(options.report() + ".hlog"), startEpochMs, options.intervalMs(),
            "hiccup meter sleep overruns (" + options.resolutionMs() + " ms sleeps)");
        long askedNs = TimeUnit.MILLISECONDS.toNanos(options.resolutionMs());
        long endNs = options.durationS() == 0 ? Long.MAX_VALUE
            : System.nanoTime() + TimeUnit.SECONDS.toNanos(options.durationS());
        try {
            while (!stopping && System.nanoTime() < endNs) {
                long before = System.nanoTime();
                try {
                    sleeper.sleep(options.resolutionMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                long overrunUs = Math.max(0, System.nanoTime() - before - askedNs) / 1000;
                log.record(overrunUs);
                synchronized (all) {
                    all.recordValue(Math.min(overrunUs, IntervalLog.HIGHEST_TRACKABLE_US));
                }
            }
        } finally {
            log.close();
            writeSummary(System.currentTimeMillis());
            finished.countDown();
        }
    }

    /** Asks the loop to end (it ends within one sleep). */
    void stop() {
        stopping = true;
    }

    private void stopAndWait() {
        stop();
        try {
            finished.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void writeSummary(long endEpochMs) throws IOException {
        Histogram h;
        synchronized (all) {
            h = all.copy();
        }
        JsonWriter overrun = new JsonWriter()
            .put("mean", Math.round(h.getMean()))
            .put("p50", h.getValueAtPercentile(50))
            .put("p99", h.getValueAtPercentile(99))
            .put("p999", h.getValueAtPercentile(99.9))
            .put("p9999", h.getValueAtPercentile(99.99))
            .put("max", h.getMaxValue());
        JsonWriter json = new JsonWriter()
            .put("format", 1)
            .put("tool", "hiccup")
            .put("resolution_ms", options.resolutionMs())
            .put("interval_ms", options.intervalMs())
            .put("samples", h.getTotalCount())
            .put("overrun_us", overrun)
            .put("start_epoch_ms", startEpochMs)
            .put("end_epoch_ms", endEpochMs)
            .put("hlog", Path.of(options.report() + ".hlog").getFileName().toString());
        Files.writeString(Path.of(options.report() + ".json"), json.toString() + "\n", StandardCharsets.UTF_8);
    }
}
