package org.heaplab.ycsb;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Properties;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.WorkloadException;
import site.ycsb.generator.ExponentialGenerator;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * The NetEase report's increment test as a YCSB workload ({@code workload=org.heaplab.ycsb.IncrementWorkload}).
 *
 * <p>load: each record is one row holding a 64-bit counter column ({@code incrementcolumn}, default
 * {@code counter}) set to 0, written through YCSB's DB (measured as INSERT). run: every transaction adds
 * {@code incrementamount} (default 1) to the counter of a row chosen by CoreWorkload's
 * {@code requestdistribution} over the loaded records, one engine INCREMENT call, measured as the
 * operation INCREMENT in YCSB's Measurements (INCREMENT-FAILED when it fails), so it lands in the same
 * histograms, hdr interval logs and export as READ or UPDATE.
 *
 * <p>Why not through the DB: YCSB's DB interface has no increment, and the DB a workload receives is
 * YCSB's DBWrapper, which hides the binding. So the workload's per-thread state ({@link #initThread})
 * holds the binding's own {@link Counters} (the class of YCSB's {@code db} property must be a
 * {@link Counters.Source}: the engine's EngineClient, or Apache HBase's binding), and the workload measures
 * the call itself exactly as DBWrapper measures the others (latency in microseconds, plus the
 * intended-start latency and the status count).
 */
public class IncrementWorkload extends CoreWorkload {
    public static final String INCREMENT_COLUMN_PROPERTY = "incrementcolumn";
    public static final String INCREMENT_COLUMN_DEFAULT = "counter";
    public static final String INCREMENT_AMOUNT_PROPERTY = "incrementamount";
    public static final String OPERATION = "INCREMENT";

    private byte[] family;
    private byte[] column;
    private String columnName;
    private long amount;
    private Measurements measurements;
    private final List<Counters> opened = new ArrayList<>();

    /** One YCSB client thread's counters. */
    record ThreadState(Counters counters) {
    }

    @Override
    public void init(Properties p) throws WorkloadException {
        super.init(p);
        family = EngineClient.bytes(p.getProperty(EngineClient.COLUMN_FAMILY_PROPERTY, EngineClient.COLUMN_FAMILY_DEFAULT));
        columnName = p.getProperty(INCREMENT_COLUMN_PROPERTY, INCREMENT_COLUMN_DEFAULT);
        column = EngineClient.bytes(columnName);
        try {
            amount = Long.parseLong(p.getProperty(INCREMENT_AMOUNT_PROPERTY, "1"));
        } catch (NumberFormatException e) {
            throw new WorkloadException(INCREMENT_AMOUNT_PROPERTY + " must be a whole number, got '"
                + p.getProperty(INCREMENT_AMOUNT_PROPERTY) + "'");
        }
        measurements = Measurements.getMeasurements();
    }

    @Override
    public Object initThread(Properties p, int threadId, int threadCount) throws WorkloadException {
        String db = p.getProperty("db", EngineClient.class.getName());
        Object binding;
        try {
            binding = Class.forName(db).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new WorkloadException("cannot create the binding " + db + ": " + e);
        }
        if (!(binding instanceof Counters.Source source)) {
            throw new WorkloadException("the binding " + db + " has no increments (it is not a Counters.Source)");
        }
        try {
            Counters c = source.openCounters(p);
            synchronized (opened) {
                opened.add(c);
            }
            return new ThreadState(c);
        } catch (IOException | RuntimeException e) {
            throw new WorkloadException(e.getMessage());
        }
    }

    @Override
    public void cleanup() {
        synchronized (opened) {
            opened.forEach(Counters::close);
            opened.clear();
        }
    }

    /** load: the row with its counter at 0 (an 8-byte big-endian long, what INCREMENT adds to). */
    @Override
    public boolean doInsert(DB db, Object threadState) {
        String key = buildKeyName(keysequence.nextValue().intValue());
        HashMap<String, ByteIterator> values = new HashMap<>();
        values.put(columnName, new ByteArrayByteIterator(ByteBuffer.allocate(Long.BYTES).putLong(0).array()));
        Status status = db.insert(table, key, values);
        return status != null && status.isOk();
    }

    /** run: one increment of a chosen row's counter, measured as INCREMENT. */
    @Override
    public boolean doTransaction(DB db, Object threadState) {
        Counters counters = ((ThreadState) threadState).counters();
        byte[] row = EngineClient.bytes(buildKeyName(nextKey()));
        long intended = measurements.getIntendedtartTimeNs();
        long start = System.nanoTime();
        Status status;
        try {
            counters.increment(table, row, family, column, amount);
            status = Status.OK;
        } catch (IOException | RuntimeException e) {
            status = EngineClient.failed("increment", e);
        }
        long end = System.nanoTime();
        String name = status.isOk() ? OPERATION : OPERATION + "-FAILED";
        measurements.measure(name, (int) ((end - start) / 1000));
        if (intended != 0) { // 0: YCSB measures only the service time (measurement.interval=op)
            measurements.measureIntended(name, (int) ((end - intended) / 1000));
        }
        measurements.reportStatus(OPERATION, status);
        return true;
    }

    /** CoreWorkload's choice of an existing record (its nextKeynum is package-private). */
    private long nextKey() {
        long keynum;
        if (keychooser instanceof ExponentialGenerator) {
            do {
                keynum = transactioninsertkeysequence.lastValue() - keychooser.nextValue().intValue();
            } while (keynum < 0);
        } else {
            do {
                keynum = keychooser.nextValue().intValue();
            } while (keynum > transactioninsertkeysequence.lastValue());
        }
        return keynum;
    }
}
