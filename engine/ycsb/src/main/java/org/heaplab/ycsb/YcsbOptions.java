package org.heaplab.ycsb;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The command line of {@code bin/engine ycsb [--report=PREFIX] load|run -P <file|name> [-p key=value ...]
 * [-threads N] [-target N] [-s]}, checked before YCSB sees it (YCSB's own parser prints its usage and
 * exits 0 on a mistake). {@link #properties()} is what YCSB's Client will build from the same arguments:
 * the -P files in order, then -p, -threads, -target, -s on top.
 */
record YcsbOptions(String report, boolean load, List<Path> workloads, Map<String, String> overrides, int threads,
                   int target, boolean status, String args) {
    static final String USAGE = "Usage: bin/engine ycsb [--report=PREFIX] load|run -P <workload file or name> [-P ...]"
        + " [-p key=value ...] [-threads N] [-target OPS_PER_S] [-s]\n"
        + "  a bare -P name is read from conf/ycsb/ (workloada..workloadf, increment); the binding"
        + " org.heaplab.ycsb.EngineClient is implied (engine/docs/ycsb.md)";
    /**
     * The system property naming the binding (YCSB's -db) when it is not the engine's: set by a launcher
     * of another store (infra/apache-hbase's hbase-lab ycsb), never by a user (-db is refused).
     */
    static final String BINDING_PROPERTY = "heaplab.ycsb.db";
    /** YCSB properties that must be whole numbers (YCSB would die with a stack trace). */
    private static final List<String> NUMBERS = List.of("recordcount", "operationcount", "insertcount", "insertstart",
        "fieldcount", "fieldlength", "maxscanlength", "minscanlength", "threadcount", "target", "maxexecutiontime",
        "status.interval");

    /**
     * @param confDirs where a bare workload name is looked up, in order (ENGINE_CONF_DIR/ycsb, ENGINE_HOME/conf/ycsb)
     */
    static YcsbOptions parse(String[] args, List<Path> confDirs) throws UsageException {
        String report = null;
        Boolean load = null;
        List<Path> workloads = new ArrayList<>();
        Map<String, String> overrides = new LinkedHashMap<>();
        int threads = 1;
        int target = 0;
        boolean status = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "load", "run" -> {
                    if (load != null) {
                        throw new UsageException("give one of load or run, not both ('" + a + "')");
                    }
                    load = a.equals("load");
                }
                case "-P" -> workloads.add(workload(value(args, ++i, a), confDirs));
                case "-p" -> {
                    String kv = value(args, ++i, a);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageException("-p needs key=value, got '" + kv + "'");
                    }
                    overrides.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                case "-threads" -> threads = positive(a, value(args, ++i, a), 1);
                case "-target" -> target = positive(a, value(args, ++i, a), 0);
                case "-s" -> status = true;
                case "-db" -> throw new UsageException("-db is implied (org.heaplab.ycsb.EngineClient) and cannot be changed");
                default -> {
                    if (a.startsWith("--report")) {
                        if (!a.startsWith("--report=") || a.length() == "--report=".length()) {
                            throw new UsageException("--report needs a value: --report=PREFIX");
                        }
                        report = a.substring("--report=".length());
                    } else if (a.startsWith("-")) {
                        throw new UsageException("unknown flag " + a + " for ycsb");
                    } else {
                        throw new UsageException("unexpected argument '" + a + "' (give load or run, and -P before a workload)");
                    }
                }
            }
        }
        if (load == null) {
            throw new UsageException("missing load or run");
        }
        if (workloads.isEmpty() && !overrides.containsKey("workload")) {
            throw new UsageException("missing -P <workload file or name>");
        }
        YcsbOptions o = new YcsbOptions(report, load, workloads, overrides, threads, target, status, String.join(" ", args));
        Properties p = o.properties();
        for (String key : NUMBERS) {
            String v = p.getProperty(key);
            if (v != null && !v.trim().matches("\\d+")) {
                throw new UsageException(key + " must be a whole number >= 0, got '" + v + "'");
            }
        }
        if (p.getProperty("workload") == null) {
            throw new UsageException("no workload class: the -P file must set workload=... (e.g. site.ycsb.workloads.CoreWorkload)");
        }
        return o;
    }

    /** The workload's name for the report: the last -P file's name. */
    String testName() {
        return workloads.isEmpty() ? overrides.get("workload") : workloads.get(workloads.size() - 1).getFileName().toString();
    }

    /** The properties YCSB's Client builds from our arguments. */
    Properties properties() throws UsageException {
        Properties p = new Properties();
        for (Path w : workloads) {
            try (InputStream in = Files.newInputStream(w)) {
                p.load(in);
            } catch (IOException e) {
                throw new UsageException("cannot read workload file " + w + ": " + e.getMessage());
            }
        }
        overrides.forEach(p::setProperty);
        if (report != null) {
            YcsbReport.clientProperties(report).forEach(p::setProperty);
        }
        if (status || report != null) {
            p.setProperty("status", "true");
        }
        p.setProperty("threadcount", Integer.toString(threads));
        if (target > 0) {
            p.setProperty("target", Integer.toString(target));
        }
        p.setProperty("dotransactions", Boolean.toString(!load));
        return p;
    }

    private static Path workload(String name, List<Path> confDirs) throws UsageException {
        Path given = Path.of(name);
        if (Files.isRegularFile(given)) {
            return given;
        }
        if (!name.contains("/")) {
            for (Path dir : confDirs) {
                Path p = dir.resolve(name);
                if (Files.isRegularFile(p)) {
                    return p;
                }
            }
        }
        throw new UsageException("-P " + name + ": no such file" + (name.contains("/") ? ""
            : " and no workload of that name in " + confDirs.get(0) + " (workloada..workloadf, increment)"));
    }

    private static String value(String[] args, int i, String flag) throws UsageException {
        if (i >= args.length) {
            throw new UsageException(flag + " needs a value");
        }
        return args[i];
    }

    private static int positive(String flag, String v, int min) throws UsageException {
        try {
            int n = Integer.parseInt(v);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageException(flag + " must be a whole number >= " + min + ", got '" + v + "'");
    }

    /** The binding's class: the engine's EngineClient unless the launcher set {@link #BINDING_PROPERTY}. */
    static String binding() {
        String db = System.getProperty(BINDING_PROPERTY, "");
        return db.isBlank() ? EngineClient.class.getName() : db;
    }

    /** True when the binding is the engine's own (its table check and server metrics apply). */
    static boolean engineBinding() {
        return binding().equals(EngineClient.class.getName());
    }

    /** YCSB's Client arguments for these options (the binding implied; the --report properties added). */
    List<String> clientArgs() {
        List<String> out = new ArrayList<>(List.of("-db", binding(), load ? "-load" : "-t"));
        for (Path w : workloads) {
            out.add("-P");
            out.add(w.toString());
        }
        Map<String, String> props = new LinkedHashMap<>(overrides);
        if (report != null) {
            props.putAll(YcsbReport.clientProperties(report));
        }
        props.forEach((k, v) -> {
            out.add("-p");
            out.add(k + "=" + v);
        });
        out.add("-threads");
        out.add(Integer.toString(threads));
        if (target > 0) {
            out.add("-target");
            out.add(Integer.toString(target));
        }
        if (status || report != null) {
            out.add("-s");
        }
        return out;
    }
}
