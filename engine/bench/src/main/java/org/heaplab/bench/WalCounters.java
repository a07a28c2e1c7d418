package org.heaplab.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * What one {@link WalAppendBenchmark} trial did to the WAL: appends (completed ops, warm-up included),
 * filesystem flushes and forces, and the group-commit size derived from them. Written as one JSON line
 * so that {@code engine/bench/summarize.py} can put it beside JMH's score.
 * The counts include the close barrier's final flush and force.
 */
record WalCounters(String benchmark, int threads, String durability, String mvcc, int batch, int syncers,
                   int valueSize, long appends, long syncs, long forces, long walBytes, double seconds) {

    /** Appends per filesystem flush (0 when there was none). */
    double appendsPerSync() {
        return syncs == 0 ? 0 : (double) appends / syncs;
    }

    /** Appends per force (0 when there was none). */
    double appendsPerForce() {
        return forces == 0 ? 0 : (double) appends / forces;
    }

    String describe() {
        return String.format(Locale.ROOT,
            "WAL counters (%s, %d threads, %s, %s, batch %d): %d appends, %d syncs, %d forces in %.1f s;"
                + " appends/sync %.1f, appends/force %.1f, %d WAL bytes",
            benchmark.substring(benchmark.lastIndexOf('.') + 1), threads, durability, mvcc, batch, appends, syncs,
            forces, seconds, appendsPerSync(), appendsPerForce(), walBytes);
    }

    String toJson() {
        return String.format(Locale.ROOT,
            "{\"benchmark\": \"%s\", \"threads\": %d, \"params\": {\"durability\": \"%s\", \"mvcc\": \"%s\","
                + " \"batch\": \"%d\", \"syncers\": \"%d\", \"valueSize\": \"%d\"}, \"appends\": %d, \"syncs\": %d,"
                + " \"forces\": %d, \"wal_bytes\": %d, \"seconds\": %.3f}",
            benchmark, threads, durability, mvcc, batch, syncers, valueSize, appends, syncs, forces, walBytes, seconds);
    }

    void appendJsonLine(Path file) throws IOException {
        Files.writeString(file, toJson() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    }
}
