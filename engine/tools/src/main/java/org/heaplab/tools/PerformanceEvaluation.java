package org.heaplab.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.heaplab.client.Admin;
import org.heaplab.client.Connection;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.conf.EngineEnv;

/**
 * {@code bin/engine pe}: HBase PerformanceEvaluation's --nomapred mode against a HeapLab region
 * server. Clients are threads; with --oneCon=true they share one connection, otherwise each has
 * its own. Write commands and increment create the table when missing (with the family options
 * --compress, --blockEncoding, --bloomFilter, --inmemory) and, with --presplit=N, recreate it when it
 * does not have N regions (as HBase PE does); read commands need the table loaded already. Prints HBase 2.x PE's per-thread blocks and summary on
 * stdout, progress every 10% per client on stderr, and with --report=PREFIX writes PREFIX.json and
 * PREFIX.hlog.
 *
 * <p>Exit codes: 0 done; 1 runtime failure (no server, failed call); 2 usage error. Errors print
 * one "ERROR: ..." line on stderr, never a stack trace.
 */
public final class PerformanceEvaluation {
    private final PeOptions o;
    private final Configuration conf;
    private final PrintStream out;
    private final PrintStream err;

    PerformanceEvaluation(PeOptions o, Configuration conf, PrintStream out, PrintStream err) {
        this.o = o;
        this.conf = conf;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs pe with {@code args} and returns the exit code (tests call this directly). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            out.println(PeOptions.USAGE);
            return 0;
        }
        PeOptions o;
        try {
            o = PeOptions.parse(Arrays.asList(args));
        } catch (UsageException e) {
            err.println("ERROR: " + e.getMessage());
            err.println(PeOptions.USAGE);
            return 2;
        }
        Configuration conf;
        try {
            conf = EngineEnv.fromSystem().loadConfiguration();
        } catch (ConfigurationException e) {
            err.println("ERROR: " + e.getMessage());
            return 1;
        }
        return new PerformanceEvaluation(o, conf, out, err).run();
    }

    int run() {
        List<Connection> connections = new ArrayList<>();
        try {
            Connection first = Connection.open(conf);
            connections.add(first);
            prepareTable(first.getAdmin());
            for (int i = 1; i < o.clients() && !o.oneCon(); i++) {
                connections.add(Connection.open(conf));
            }
            return runClients(connections);
        } catch (IOException e) {
            err.println("ERROR: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("ERROR: interrupted");
            return 1;
        } finally {
            connections.forEach(Connection::close);
        }
    }

    /**
     * Creates the table for writes and increments (or recreates it with --presplit=N when its region
     * count differs), with the family options of the command line.
     */
    void prepareTable(Admin admin) throws IOException {
        boolean exists = admin.tableExists(o.table());
        if (!o.command().createsTable()) {
            if (!exists) {
                throw new IOException("table '" + o.table() + "' does not exist; load it first, e.g. with sequentialWrite");
            }
            return;
        }
        if (exists && o.presplit() > 0 && admin.regions(o.table()).size() != o.presplit()) {
            err.println("pe: recreating " + o.table() + " with " + o.presplit() + " regions");
            admin.dropTable(o.table());
            exists = false;
        }
        if (!exists) {
            Compression c = o.compress() == null ? Compression.NONE : o.compress();
            admin.createTable(new TableDescriptor(o.table(), PeData.FAMILY, c, Durability.USE_DEFAULT,
                o.blockEncoding() == null ? DataBlockEncoding.NONE : o.blockEncoding(),
                o.bloomFilter() == null ? BloomType.ROW : o.bloomFilter(), o.inMemory()),
                PeData.splits(o.presplit(), o.totalRows()));
        }
    }

    private int runClients(List<Connection> connections) throws IOException, InterruptedException {
        long startEpochMs = System.currentTimeMillis();
        IntervalLog log = o.report() == null ? null : IntervalLog.start(Path.of(o.report() + ".hlog"), startEpochMs,
            o.reportIntervalMs(), "pe latencies");
        AtomicInteger failures = new AtomicInteger();
        Long seed = Long.getLong(PeClient.SEED_PROPERTY);
        if (seed != null) {
            err.println("pe: workload seed " + seed + " (" + PeClient.SEED_PROPERTY + ")");
        }
        List<PeClient> clients = new ArrayList<>();
        for (int i = 0; i < o.clients(); i++) {
            Connection c = connections.get(o.oneCon() ? 0 : i);
            clients.add(new PeClient(o, i, c.getTable(o.table()), log, this::progress));
        }
        ExecutorService pool = Executors.newFixedThreadPool(o.clients(), r -> new Thread(r));
        List<Future<PeSummary.ClientResult>> futures = new ArrayList<>();
        // the server side of the measured window: every region server's METRICS right before the first call
        ServerMetricsWindow window = o.report() == null ? null
            : ServerMetricsWindow.begin(connections.get(0).getAdmin(), o.table());
        long t0 = System.nanoTime();
        for (PeClient c : clients) {
            futures.add(pool.submit(() -> {
                Thread.currentThread().setName(c.name());
                PeSummary.ClientResult r = c.call();
                synchronized (PerformanceEvaluation.class) {
                    out.print(PeSummary.clientBlock(o.command().testName(), testClassName(), r, o.valueSize()));
                    out.flush();
                }
                return r;
            }));
        }
        List<PeSummary.ClientResult> results = new ArrayList<>();
        String firstError = null;
        for (int i = 0; i < futures.size(); i++) {
            try {
                results.add(futures.get(i).get());
            } catch (ExecutionException e) {
                failures.incrementAndGet();
                if (firstError == null) {
                    Throwable c = e.getCause();
                    firstError = clients.get(i).name() + " failed: " + (c.getMessage() == null ? c.toString() : c.getMessage());
                }
            }
        }
        double durationMs = (System.nanoTime() - t0) / 1e6;
        long endEpochMs = System.currentTimeMillis();
        if (window != null && firstError == null) {
            window.end(); // ... and right after the last
        }
        pool.shutdown();
        if (log != null) {
            log.close();
        }
        if (firstError != null) {
            err.println("ERROR: " + firstError + (failures.get() > 1 ? " (and " + (failures.get() - 1) + " more clients)" : ""));
            return 1;
        }
        out.print(PeSummary.summary(o.command().testName(), results, o.rows()));
        out.flush();
        if (o.report() != null) {
            Histogram all = new Histogram(IntervalLog.HIGHEST_TRACKABLE_US, 3);
            long operations = 0;
            long rows = 0;
            for (PeClient c : clients) {
                all.add(c.latency());
                operations += c.operations();
                rows += o.sampledRows(c.startRow()); // all its rows unless --sampleRate
            }
            String hlogName = Path.of(o.report() + ".hlog").getFileName().toString();
            PeReport.write(Path.of(o.report() + ".json"), PeReport.json(o, all, operations, rows,
                durationMs, startEpochMs, endEpochMs, hlogName, window.json()));
        }
        return 0;
    }

    private void progress(PeClient c, int done) {
        Histogram h = c.latency();
        err.println(c.name() + " " + c.startRow() + "/" + (c.startRow() + done) + "/" + (c.startRow() + o.rows())
            + ", latency mean=" + PeSummary.fmt(h.getMean()) + ", 99th=" + h.getValueAtPercentile(99) + " us");
    }

    /** What HBase prints after "Finished class": the test's class name. */
    static String testClassName(String testName) {
        return PerformanceEvaluation.class.getName() + "$" + testName;
    }

    private String testClassName() {
        return testClassName(o.command().testName());
    }
}
