package org.heaplab.ycsb;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.heaplab.client.Connection;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.EngineEnv;
import site.ycsb.Client;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/**
 * {@code bin/engine ycsb}: checks the command line, the workload and the table, then runs the real
 * {@code site.ycsb.Client} with our binding. YCSB's Client ends the JVM itself ({@code System.exit(0)},
 * also when it gives up half way), so the --report files are written by a shutdown hook that runs once
 * YCSB exported its measurements; the hook turns "every operation failed" or "YCSB stopped early" into one
 * {@code ERROR:} line and exit code 1.
 *
 * <p>Exit codes: 0 done (some operations may have failed: see "failed" in PREFIX.json), 1 runtime (server
 * down, table missing, every operation failed), 2 usage. Never a stack trace for a user mistake.
 */
public final class YcsbCommand {
    /** Set when SIGTERM or SIGINT ends the run (a background phase stopped by its until phase). */
    private static volatile boolean stopped;

    private YcsbCommand() {
    }

    public static void main(String[] args) {
        EngineEnv env = EngineEnv.fromSystem();
        List<Path> confDirs = List.of(env.confDir().resolve("ycsb"), env.home().resolve("conf").resolve("ycsb"));
        PrintStream err = System.err;
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help"))) {
            System.out.println(YcsbOptions.USAGE);
            return;
        }
        YcsbOptions o;
        Properties props;
        try {
            o = YcsbOptions.parse(args, confDirs);
            props = o.properties();
            checkWorkload(props);
            if (YcsbOptions.engineBinding()) {
                EngineConnections.perThread(props);
            }
        } catch (UsageException | IllegalArgumentException e) {
            err.println("ERROR: " + e.getMessage());
            err.println(YcsbOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            if (YcsbOptions.engineBinding()) {
                checkTable(props);
            } else {
                checkBinding(props);
            }
        } catch (IOException | ConfigurationException e) {
            err.println("ERROR: " + e.getMessage());
            System.exit(1);
            return;
        }
        if (o.report() != null) {
            try {
                Path parent = Path.of(o.report()).toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
            } catch (IOException e) {
                err.println("ERROR: --report=" + o.report() + ": cannot create its directory: " + e.getMessage());
                System.exit(1);
                return;
            }
            // stopped from outside: exit as the JVM would (128 + signal), with no report and no ERROR line
            for (String[] sig : new String[][] {{"TERM", "143"}, {"INT", "130"}}) {
                sun.misc.Signal.handle(new sun.misc.Signal(sig[0]), s -> {
                    stopped = true;
                    System.exit(Integer.parseInt(sig[1]));
                });
            }
            if (YcsbOptions.engineBinding()) { // the engine's servers report their metrics; another store's do not
                YcsbServerWindow.enable(props.getProperty("table", "usertable"), o.threads());
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> afterYcsb(o), "ycsb-report"));
        }
        Client.main(o.clientArgs().toArray(new String[0]));
    }

    /** Loads and initialises the workload class once, so a bad property is one line before YCSB starts. */
    private static void checkWorkload(Properties props) throws UsageException {
        String name = props.getProperty("workload");
        Workload w;
        Measurements.setProperties(props); // before the class: CoreWorkload takes the Measurements when constructed
        try {
            w = (Workload) Class.forName(name).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException | NoSuchMethodException | ClassCastException e) {
            throw new UsageException("workload=" + name + " is not a YCSB workload class on the classpath");
        } catch (ReflectiveOperationException e) {
            throw new UsageException("workload " + name + " could not be created: " + e.getCause());
        }
        try {
            w.init(props);
            w.cleanup();
        } catch (WorkloadException | RuntimeException e) {
            throw new UsageException("workload " + name + ": " + e.getMessage());
        }
    }

    /**
     * Opens the connection (shared by the binding afterwards) and checks that the table exists, as YCSB's
     * HBase binding requires; both failures are one line.
     */
    private static void checkTable(Properties props) throws IOException {
        String table = props.getProperty("table", "usertable");
        Connection c = EngineConnections.acquire(props); // kept: the threads share it (released at exit)
        if (!c.getAdmin().tableExists(table)) {
            String family = props.getProperty(EngineClient.COLUMN_FAMILY_PROPERTY, EngineClient.COLUMN_FAMILY_DEFAULT);
            throw new IOException("table " + table + " does not exist; create it first: bin/engine admin create " + table
                + " --family=" + family + " [--presplit=N --rows=" + props.getProperty("recordcount", "RECORDS") + " --splits=ycsb]");
        }
    }

    /**
     * Another store's binding: one instance initialised and cleaned up before YCSB starts, so a server that
     * is down or a table that is missing is one line (the binding's init says which), not a stack trace per
     * YCSB thread.
     */
    private static void checkBinding(Properties props) throws IOException {
        String db = YcsbOptions.binding();
        DB probe;
        try {
            probe = (DB) Class.forName(db).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            throw new IOException("the binding " + db + " cannot be created: " + e);
        }
        probe.setProperties(props);
        try {
            probe.init();
            probe.cleanup();
        } catch (DBException e) {
            throw new IOException(e.getMessage());
        }
    }

    /** The shutdown hook: PREFIX.json and PREFIX.hlog, YCSB's text lines on stdout, the exit code. */
    private static void afterYcsb(YcsbOptions o) {
        if (stopped) {
            System.err.println("ycsb: stopped by a signal before the end; no report written");
            return;
        }
        try {
            YcsbReport.printText(YcsbReport.exportFile(o.report()), System.out);
            YcsbReport.Outcome r = YcsbReport.write(o.report(), o.load() ? "load" : "run", o.testName(), o.args(), o.threads(),
                YcsbServerWindow.finish());
            System.out.flush();
            if (r.operations() > 0 && r.failed() == r.operations()) {
                System.err.println("ERROR: every one of the " + r.operations() + " operations failed (see the WARN line above)");
                Runtime.getRuntime().halt(1);
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("ERROR: " + e.getMessage());
            System.out.flush();
            Runtime.getRuntime().halt(1);
        }
    }
}
