package org.heaplab.bench;

import java.util.concurrent.TimeUnit;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.memstore.Memstore;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Memstore insert, one op = one PE-like cell copied into the memstore and indexed
 * ({@link Memstore#add}), per {@link MemstoreVariant}. Run with {@code -prof gc} to get the
 * allocation per insert ({@code gc.alloc.rate.norm}, bytes/op), which is where the variants differ.
 *
 * <p>The input cells are views into one pre-built request buffer, so every variant copies each cell
 * exactly once (as on the server's write path). Every {@code cellsPerMemstore} inserts the memstore
 * is "flushed": released (MSLAB chunks go back to the pool, plain cells become garbage) and replaced
 * by a fresh one, and the same cells are inserted again. That cost is part of the measurement, amortized,
 * as a flush is part of a server's steady state; the write of the flushed file is not. The trial setup
 * fills and releases one memstore first, so the chunk pool is warm as in a server that has flushed before.
 *
 * <p>One writer thread: a region's memstore is concurrent, but this measures the per-cell cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseG1GC"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class MemstoreInsertBenchmark {
    /** Every constant of {@link MemstoreVariant} unless {@code -p variant=PLAIN,...} narrows it. */
    @Param
    public MemstoreVariant variant;

    /** Value bytes per cell (the labs run {@code pe --valueSize=200}). */
    @Param("200")
    public int valueSize;

    /** Inserts between two flushes: 100 000 PE cells are about 33 MB of memstore heap size. */
    @Param("100000")
    public int cellsPerMemstore;

    /** Where the request cells live: {@code heap} (KeyValue slices of a byte[]) or {@code direct} (ByteBufferKeyValue). */
    @Param("heap")
    public String request;

    private Memstore.Factory memstores;
    private Cell[] cells;
    private Memstore memstore;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        if (!request.equals("heap") && !request.equals("direct")) {
            throw new IllegalArgumentException("request must be heap or direct, got " + request);
        }
        memstores = variant.memstores();
        cells = PeCells.requestViews(42, cellsPerMemstore, valueSize, request.equals("direct"));
        // a server in steady state has flushed before: fill one memstore and release it, so the MSLAB
        // variants measure chunks reused from the pool rather than the pool's first allocations
        memstore = memstores.create();
        for (Cell c : cells) {
            memstore.add(c);
        }
        memstore.release();
        memstore = memstores.create();
        next = 0;
    }

    @Benchmark
    public long insert() {
        if (next == cells.length) {
            flush();
        }
        return memstore.add(cells[next++]);
    }

    /** What a flush does to the memstore's memory: the old one is released, a fresh one takes writes. */
    private void flush() {
        memstore.release();
        memstore = memstores.create();
        next = 0;
    }

    /** The factory the variant's keys chose (for tests). */
    Memstore.Factory memstores() {
        return memstores;
    }

    /** The memstore taking inserts now (for tests). */
    Memstore memstore() {
        return memstore;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        memstore.release();
        System.out.println("memstore variant " + variant + ": " + memstores.describe() + "; " + memstores.stats());
    }
}
