package org.heaplab.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.Main;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code make bench}'s entry point: JMH's command line ({@code java ... BenchMain -h} lists it) with a
 * SHORT default configuration for the options the user did not give: 1 fork, 1 warm-up iteration of
 * 1 s, 2 measurement iterations of 1 s, the GC profiler ({@code -prof gc}), fail on error, and JSON
 * results in {@code $HEAPLAB_BENCH_OUT/jmh*.json}. Every option given on the command line wins over
 * these. {@code --full} drops the short timing defaults, so the benchmarks' own annotations apply
 * (3 x 2 s warm-up, 5 x 2 s measurement). Without a benchmark pattern and without {@code -p durability}
 * or {@code -p batch}, it runs the {@link #DEFAULT_SUITE} (one JMH run per pass); otherwise one JMH run.
 */
public final class BenchMain {
    /** Directory for jmh.json (make bench sets it to results/runs/bench-TIMESTAMP). */
    public static final String OUT_ENV = "HEAPLAB_BENCH_OUT";

    private BenchMain() {
    }

    public static void main(String[] argv) throws IOException {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        boolean full = args.remove("--full");
        CommandLineOptions cmd;
        try {
            cmd = new CommandLineOptions(args.toArray(new String[0]));
        } catch (CommandLineOptionException e) {
            System.err.println("ERROR: " + e.getMessage() + " (JMH options: make bench BENCH_ARGS=-h)");
            System.exit(2);
            return;
        }
        if (cmd.shouldHelp() || cmd.shouldList() || cmd.shouldListWithParams() || cmd.shouldListProfilers()
            || cmd.shouldListResultFormats()) {
            Main.main(args.toArray(new String[0]));
            return;
        }
        String out = System.getenv(OUT_ENV);
        boolean defaultSuite = cmd.getIncludes().isEmpty() && !cmd.getParameter("durability").hasValue()
            && !cmd.getParameter("batch").hasValue();
        List<Pass> passes = defaultSuite ? DEFAULT_SUITE : List.of(new Pass("jmh", List.of(), Map.of()));
        int failed = 0;
        for (Pass pass : passes) {
            ChainedOptionsBuilder b = shortDefaults(cmd, full);
            pass.includes().forEach(b::include);
            pass.params().forEach((k, v) -> b.param(k, v.toArray(new String[0])));
            if (!cmd.getResult().hasValue() && out != null && !out.isBlank()) {
                b.result(Path.of(out, pass.name() + ".json").toString());
                if (!cmd.getResultFormat().hasValue()) {
                    b.resultFormat(ResultFormatType.JSON);
                }
            }
            try {
                new Runner(b.build()).run();
            } catch (RunnerException e) {
                failed++;
                System.err.println("ERROR: benchmark pass " + pass.name() + " failed: " + e.getMessage()
                    + (e.getCause() != null ? " (" + e.getCause() + ")" : ""));
            }
        }
        if (failed > 0) {
            System.err.println("ERROR: " + failed + " of " + passes.size() + " benchmark passes failed (see above)");
            System.exit(1);
        }
    }

    /** One JMH run of the default suite: which benchmarks, which parameter values, its result file name. */
    private record Pass(String name, List<String> includes, Map<String, List<String>> params) {
    }

    /**
     * The default suite: every memstore variant; the WAL at SYNC_WAL and FSYNC_WAL with batches of 1
     * and 100; ASYNC_WAL with batches of 1 only; in-block seek per data block encoding. ASYNC_WAL
     * with 100-cell batches from many threads produces records faster than the disk takes them: ops then stall for seconds behind the WAL's
     * backpressure, JMH's throughput score stops meaning anything, and a trial takes half a minute
     * (engine/docs/benchmarks.md, Pitfalls). Ask for it with {@code -p durability=ASYNC_WAL -p batch=100}.
     */
    private static final List<Pass> DEFAULT_SUITE = List.of(
        new Pass("jmh-memstore", List.of("MemstoreInsertBenchmark"), Map.of()),
        new Pass("jmh-wal-sync", List.of("WalAppendBenchmark"),
            Map.of("durability", List.of("SYNC_WAL", "FSYNC_WAL"))),
        new Pass("jmh-wal-async", List.of("WalAppendBenchmark"),
            Map.of("durability", List.of("ASYNC_WAL"), "batch", List.of("1"))),
        new Pass("jmh-encoding", List.of("EncodingSeekBenchmark"), Map.of()));

    private static ChainedOptionsBuilder shortDefaults(CommandLineOptions cmd, boolean full) {
        ChainedOptionsBuilder b = new OptionsBuilder().parent(cmd);
        if (!full) {
            if (!cmd.getForkCount().hasValue()) {
                b.forks(1);
            }
            if (!cmd.getWarmupIterations().hasValue()) {
                b.warmupIterations(1);
            }
            if (!cmd.getWarmupTime().hasValue()) {
                b.warmupTime(TimeValue.seconds(1));
            }
            if (!cmd.getMeasurementIterations().hasValue()) {
                b.measurementIterations(2);
            }
            if (!cmd.getMeasurementTime().hasValue()) {
                b.measurementTime(TimeValue.seconds(1));
            }
        }
        if (cmd.getProfilers().isEmpty()) {
            b.addProfiler(GCProfiler.class);
        }
        if (!cmd.shouldFailOnError().hasValue()) {
            b.shouldFailOnError(true);
        }
        return b;
    }
}
