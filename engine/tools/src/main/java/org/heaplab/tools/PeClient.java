package org.heaplab.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import org.heaplab.client.BufferedMutator;
import org.heaplab.client.Put;
import org.heaplab.client.Result;
import org.heaplab.client.ResultScanner;
import org.heaplab.client.Scan;
import org.heaplab.client.Table;
import org.heaplab.core.wal.Durability;

/**
 * One PE client thread ("TestClient-i"): runs its rows of the command against a table and measures
 * each call in microseconds. As in HBase PE: with --multiPut=N the puts go out N per call and only
 * calls that send are measured; with --autoFlush=false puts go through a 2 MB buffered mutator and
 * every mutate call is measured; the leftovers are sent (unmeasured) at the end. With --sampleRate
 * (randomRead) only the row numbers that are multiples of everyN issue a get.
 *
 * <p>Not thread safe: one instance per thread.
 */
final class PeClient implements Callable<PeSummary.ClientResult> {
    /** Called after each tenth of the rows, from the client thread. */
    interface Progress {
        void report(PeClient client, int done);
    }

    /** The system property that seeds the clients' random rows and values (a course's per-student seed). */
    static final String SEED_PROPERTY = "heaplab.pe.seed";

    private final PeOptions o;
    private final int index;
    private final Table table;
    private final IntervalLog log;
    private final Progress progress;
    private final Histogram latency = new Histogram(IntervalLog.HIGHEST_TRACKABLE_US, 3);
    private final Random random;
    private long operations;
    /** ScanTest's one scanner, opened at the first row. */
    private ResultScanner scanner;
    /** Rows the read commands got back (the scans count every row of their ranges). */
    private long rowsRead;

    PeClient(PeOptions o, int index, Table table, IntervalLog log, Progress progress) {
        this.o = o;
        this.index = index;
        this.table = table;
        this.log = log;
        this.progress = progress;
        this.random = workloadRandom(index);
    }

    /**
     * HBase PE's clients draw unseeded. A course seeds them per student ({@code -Dheaplab.pe.seed},
     * from {@code heaplab run --student}): each student's rows and values are their own, and client i
     * of a seeded run draws the same sequence every time.
     */
    static Random workloadRandom(int index) {
        Long seed = Long.getLong(SEED_PROPERTY);
        return seed == null ? new Random() : new Random(seed * 1_000_003L + index);
    }

    String name() {
        return "TestClient-" + index;
    }

    int startRow() {
        return index * o.rows();
    }

    Histogram latency() {
        return latency;
    }

    long operations() {
        return operations;
    }

    long rowsRead() {
        return rowsRead;
    }

    @Override
    public PeSummary.ClientResult call() throws IOException {
        int period = Math.max(1, o.rows() / 10);
        BufferedMutator mutator = o.command().isWrite() && !o.autoFlush()
            ? table.bufferedMutator(BufferedMutator.DEFAULT_WRITE_BUFFER) : null;
        List<Put> batch = o.multiPut() > 0 ? new ArrayList<>(o.multiPut()) : null;
        int everyN = o.everyN();
        long start = System.currentTimeMillis();
        for (int i = 0; i < o.rows(); i++) {
            if (everyN > 1 && (startRow() + i) % everyN != 0) {
                if ((i + 1) % period == 0 && progress != null) {
                    progress.report(this, i + 1);
                }
                continue; // HBase PE's --sampleRate: this row is not sampled
            }
            long t0 = System.nanoTime();
            boolean measured = step(i, mutator, batch);
            if (measured) {
                long us = (System.nanoTime() - t0) / 1000;
                latency.recordValue(Math.min(us, IntervalLog.HIGHEST_TRACKABLE_US));
                if (log != null) {
                    log.record(us);
                }
                operations++;
            }
            if ((i + 1) % period == 0 && progress != null) {
                progress.report(this, i + 1);
            }
        }
        if (batch != null && !batch.isEmpty()) {
            table.put(batch);
        }
        if (mutator != null) {
            mutator.close();
        }
        if (scanner != null) {
            scanner.close();
        }
        long duration = System.currentTimeMillis() - start;
        return new PeSummary.ClientResult(name(), duration, startRow(), o.rows(), latency);
    }

    /** HBase PE's CASTableTest qualifier: the test's class name. */
    static final byte[] INCREMENT_QUALIFIER = "IncrementTest".getBytes(StandardCharsets.US_ASCII);

    private void count(Result r) {
        if (r != null && !r.isEmpty()) {
            rowsRead++;
        }
    }

    /** Runs row {@code i}; returns whether this call is measured. */
    private boolean step(int i, BufferedMutator mutator, List<Put> batch) throws IOException {
        switch (o.command()) {
            case RANDOM_READ -> {
                count(table.get(PeData.rowKey(PeData.randomRow(random, o.totalRows()))));
                return true;
            }
            case SEQUENTIAL_READ -> {
                count(table.get(PeData.rowKey(startRow() + i)));
                return true;
            }
            case SCAN -> {
                if (scanner == null) {
                    scanner = table.getScanner(new Scan().withStartRow(PeData.rowKey(startRow())).setCaching(o.caching()));
                }
                count(scanner.next());
                return true;
            }
            case SCAN_RANGE_100 -> {
                int start = PeData.randomRow(random, o.totalRows());
                Scan scan = new Scan().withStartRow(PeData.rowKey(start)).withStopRow(PeData.rowKey(start + 100L))
                    .setCaching(o.caching());
                try (ResultScanner s = table.getScanner(scan)) {
                    for (Result r = s.next(); r != null; r = s.next()) {
                        count(r);
                    }
                }
                return true;
            }
            case INCREMENT -> {
                table.increment(PeData.rowKey(startRow() + i), PeData.FAMILY, INCREMENT_QUALIFIER, 1,
                    o.writeToWAL() ? Durability.USE_DEFAULT : Durability.SKIP_WAL);
                return true;
            }
            case SEQUENTIAL_WRITE, RANDOM_WRITE -> {
                int row = o.command() == PeCommand.SEQUENTIAL_WRITE ? startRow() + i
                    : PeData.randomRow(random, o.totalRows());
                Put put = new Put(PeData.rowKey(row)).addColumn(PeData.FAMILY, PeData.QUALIFIER,
                    PeData.value(random, o.valueSize()));
                if (!o.writeToWAL()) {
                    put.setDurability(Durability.SKIP_WAL); // HBase PE: --writeToWAL=false
                }
                if (batch != null) {
                    batch.add(put);
                    if (batch.size() < o.multiPut()) {
                        return false;
                    }
                    table.put(batch);
                    batch.clear();
                    return true;
                }
                if (mutator != null) {
                    mutator.mutate(put);
                    return true;
                }
                table.put(put);
                return true;
            }
            default -> throw new IllegalStateException("unhandled command " + o.command());
        }
    }
}
