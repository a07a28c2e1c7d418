package org.heaplab.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.wal.GroupCommitWal;
import org.heaplab.core.wal.WalTuning;
import org.heaplab.core.wal.Mvcc;
import org.heaplab.core.wal.WriteEntry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * WAL append + sync through {@link GroupCommitWal}, as a region's put does it: one op = one region
 * batch begun with {@link Mvcc#begin} (which appends it to the WAL), waited for until durable as its
 * {@link Durability} asks (not at all for ASYNC_WAL), then completed in the MVCC
 * ({@link Mvcc#completeAndWait}). The three methods differ only in the number of handler threads
 * sharing one WAL and one region: 1, 8 and 64 ({@code -t N} on the command line overrides all three).
 *
 * <p>At the end of each trial (warm-up and measurement together) the WAL's counters are printed and,
 * when the environment variable {@value #COUNTERS_ENV} names a file, appended to it as one JSON line:
 * appends per flush ({@link GroupCommitWal#syncCount}) and per force ({@link GroupCommitWal#forceCount})
 * are the group-commit size, the number this benchmark is about.
 *
 * <p>The WAL file lives in {@value #DIR_ENV} (default {@code target/bench-wal}), which must be on a
 * real disk: on tmpfs a force costs nothing and FSYNC_WAL looks like SYNC_WAL (a warning is printed).
 * Each trial's file is deleted after the trial.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseG1GC"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class WalAppendBenchmark {
    /** Directory for the WAL files (a real disk). */
    public static final String DIR_ENV = "HEAPLAB_BENCH_WAL_DIR";
    /** File that receives one JSON line of WAL counters per trial. */
    public static final String COUNTERS_ENV = "HEAPLAB_BENCH_COUNTERS";
    private static final String TABLE = "bench";
    private static final String REGION = "bench-region";

    @Param({"ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"})
    public Durability durability;

    /** {@code legacy} (1.x: the consumer assigns the id, the handler waits on a latch) or {@code preassigned} (2.x). */
    @Param({"legacy", "preassigned"})
    public String mvcc;

    /** Cells per append (one region's batch). */
    @Param({"1", "100"})
    public int batch;

    /** hbase.regionserver.hlog.syncer.count. */
    @Param("5")
    public int syncers;

    /** Value bytes per cell (PE-like cells, as the labs write them). */
    @Param("200")
    public int valueSize;

    private GroupCommitWal wal;
    private Mvcc mvccImpl;
    private Path file;
    private String benchmark;
    private int threads;
    private final LongAdder appends = new LongAdder();
    private long startNanos;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams benchmarkParams) throws IOException {
        Path dir = Path.of(System.getenv().getOrDefault(DIR_ENV, "target/bench-wal")).toAbsolutePath();
        open(dir, benchmarkParams.getBenchmark(), benchmarkParams.getThreads());
    }

    /** Creates the WAL file in {@code dir} and the MVCC, through the start-up keys. */
    void open(Path dir, String benchmarkName, int threadCount) throws IOException {
        if (!mvcc.equals("legacy") && !mvcc.equals("preassigned")) {
            throw new IllegalArgumentException("mvcc must be legacy or preassigned, got " + mvcc);
        }
        benchmark = benchmarkName;
        threads = threadCount;
        Files.createDirectories(dir);
        String fsType = Files.getFileStore(dir).type();
        if (fsType.equals("tmpfs") || fsType.equals("ramfs")) {
            System.out.println("WARNING: WAL directory " + dir + " is on " + fsType
                + ": forces are free there, FSYNC_WAL will look like SYNC_WAL; set " + DIR_ENV + " to a real disk");
        }
        file = dir.resolve("bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".wal");
        Configuration conf = new Configuration()
            .set(WalTuning.SYNCER_COUNT, Integer.toString(syncers))
            .set(Mvcc.PREASSIGN, Boolean.toString(mvcc.equals("preassigned")));
        long firstSeqId = 1;
        wal = GroupCommitWal.create(file, firstSeqId, conf);
        mvccImpl = Mvcc.create(conf, firstSeqId - 1);
        appends.reset();
        startNanos = System.nanoTime();
    }

    /** One handler's batch, built once per thread (cells are immutable, so the WAL may keep them). */
    @State(Scope.Thread)
    public static class Handler {
        List<KeyValue> cells;

        @Setup(Level.Trial)
        public void setUp(WalAppendBenchmark b, ThreadParams thread) {
            Random random = new Random(1000 + thread.getThreadIndex());
            cells = new ArrayList<>(b.batch);
            for (int i = 0; i < b.batch; i++) {
                cells.add(PeCells.cell(random, b.valueSize));
            }
        }
    }

    @Benchmark
    @Threads(1)
    public long threads01(Handler h) throws IOException, InterruptedException {
        return put(h.cells);
    }

    @Benchmark
    @Threads(8)
    public long threads08(Handler h) throws IOException, InterruptedException {
        return put(h.cells);
    }

    @Benchmark
    @Threads(64)
    public long threads64(Handler h) throws IOException, InterruptedException {
        return put(h.cells);
    }

    /** The WAL and MVCC part of a region put (no row locks, no memstore). */
    long put(List<KeyValue> cells) throws IOException, InterruptedException {
        WriteEntry e = mvccImpl.begin(wal, TABLE, REGION, cells, durability);
        try {
            if (durability == Durability.SYNC_WAL || durability == Durability.FSYNC_WAL) {
                e.append().awaitDurable();
            }
        } finally {
            mvccImpl.completeAndWait(e);
        }
        appends.increment();
        return e.seqId();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        WalCounters c = close();
        System.out.println(c.describe());
        String out = System.getenv(COUNTERS_ENV);
        if (out != null && !out.isBlank()) {
            c.appendJsonLine(Path.of(out));
        }
    }

    /** Closes the WAL (draining and forcing it), deletes its file, and returns what the trial did. */
    WalCounters close() throws IOException {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        wal.close();
        long bytes = Files.size(file);
        Files.deleteIfExists(file);
        return new WalCounters(benchmark, threads, durability.name(), mvcc, batch, syncers, valueSize,
            appends.sum(), wal.syncCount(), wal.forceCount(), bytes, seconds);
    }
}
