package org.heaplab.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * results in {@code $HEAPLAB_BENCH_OUT/jmh.json}. Every option given on the command line wins over
 * these. {@code --full} drops the short timing defaults, so the benchmarks' own annotations apply
 * (3 x 2 s warm-up, 5 x 2 s measurement).
 */
public final class BenchMain {
    /** Directory for jmh.json (make bench sets it to results/runs/bench-TIMESTAMP). */
    public static final String OUT_ENV = "HEAPLAB_BENCH_OUT";

    private BenchMain() {
    }

    public static void main(String[] argv) throws RunnerException, IOException {
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
            org.openjdk.jmh.Main.main(args.toArray(new String[0]));
            return;
        }
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
        String out = System.getenv(OUT_ENV);
        if (!cmd.getResult().hasValue() && out != null && !out.isBlank()) {
            b.result(Path.of(out, "jmh.json").toString());
            if (!cmd.getResultFormat().hasValue()) {
                b.resultFormat(ResultFormatType.JSON);
            }
        }
        new Runner(b.build()).run();
    }
}
