package org.heaplab.tools;

import java.util.Locale;
import java.util.function.Function;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.wal.Durability;
import org.heaplab.tools.AdminCli.Command;

/**
 * The command line of {@code bin/engine admin} ({@link AdminCli#USAGE}) read into a {@link Command}: the
 * verb, then each argument by what the verb takes (count's, metrics' and create's flags, the table
 * name), then the checks across arguments. Every mistake is a {@link UsageException} naming it.
 *
 * <p>One instance per command line, used by one thread.
 */
final class AdminArgs {
    private final String verb;
    private final boolean needsTable;
    private String report;
    private String table;
    private String family = "info0";
    private int presplit;
    private int rows;
    private Compression compress = Compression.NONE;
    private Durability durability = Durability.USE_DEFAULT;
    private DataBlockEncoding encoding = DataBlockEncoding.NONE;
    private BloomType bloom = BloomType.ROW;
    private boolean inMemory;
    private boolean gc;
    private boolean json;
    private String server;
    private boolean ycsbSplits; // --splits=ycsb

    private AdminArgs(String verb, String report) throws UsageException {
        this.verb = verb;
        this.needsTable = needsTable(verb);
        this.report = report;
    }

    static Command parse(String[] args) throws UsageException {
        String report = null;
        int first = 0;
        for (; first < args.length && args[first].startsWith("--report"); first++) { // admin --report=PREFIX metrics
            report = reportPrefix(args[first]);
        }
        if (first == args.length) {
            throw new UsageException("missing admin command");
        }
        String verb = args[first];
        if (verb.equals("--help") || verb.equals("-h") || verb.equals("help")) {
            return new Command("help", null, null, 0, 0, null, null);
        }
        AdminArgs parsed = new AdminArgs(verb, report);
        for (int i = first + 1; i < args.length; i++) {
            parsed.argument(args[i]);
        }
        return parsed.command();
    }

    private static boolean needsTable(String verb) throws UsageException {
        return switch (verb) {
            case "create", "drop", "flush", "compact", "regions", "count" -> true;
            case "status", "list", "tables", "metrics" -> false;
            default -> throw new UsageException("unknown admin command '" + verb + "'");
        };
    }

    private void argument(String a) throws UsageException {
        boolean flag = a.startsWith("--");
        if (flag && verb.equals("count")) {
            countFlag(a);
        } else if (flag && verb.equals("metrics")) {
            metricsFlag(a);
        } else if (flag && verb.equals("create")) {
            createFlag(a);
        } else if (a.startsWith("-")) {
            throw new UsageException("unknown flag " + a + " for admin " + verb);
        } else if (needsTable && table == null) {
            table = a;
        } else {
            throw new UsageException("unexpected argument '" + a + "' for admin " + verb);
        }
    }

    /** admin count: --json. */
    private void countFlag(String a) throws UsageException {
        if (!a.equals("--json")) {
            throw new UsageException("unknown flag " + a + " for admin count (valid: --json)");
        }
        json = true;
    }

    /** admin metrics: --gc, --report=PREFIX, --server=HOST:PORT. */
    private void metricsFlag(String a) throws UsageException {
        if (a.equals("--gc")) {
            gc = true;
        } else if (a.startsWith("--report")) {
            report = reportPrefix(a);
        } else if (a.startsWith("--server")) {
            server = serverAddress(a);
        } else {
            throw new UsageException("unknown flag " + a + " for admin metrics");
        }
    }

    /** admin create: --flag=value for the table's layout and its family's options. */
    private void createFlag(String a) throws UsageException {
        int eq = a.indexOf('=');
        String flag = eq < 0 ? a : a.substring(0, eq);
        String value = eq < 0 ? "" : a.substring(eq + 1);
        switch (flag) {
            case "--family" -> family = nonEmpty(flag, value);
            case "--presplit" -> presplit = positive(flag, value);
            case "--rows" -> rows = positive(flag, value);
            case "--splits" -> ycsbSplits = ycsbSplits(value);
            case "--compress" -> compress = parsed(flag, value, Compression::parse);
            case "--durability" -> durability = parsed(flag, value, Durability::parse);
            case "--blockEncoding" -> encoding = parsed(flag, value, DataBlockEncoding::parse);
            case "--bloom" -> bloom = parsed(flag, value, BloomType::parse);
            case "--inMemory" -> inMemory = trueOrFalse(flag, value);
            default -> throw new UsageException("unknown flag " + flag + " for admin create");
        }
    }

    /** The checks across arguments, then the command. */
    private Command command() throws UsageException {
        if (needsTable && table == null) {
            throw new UsageException("admin " + verb + " needs a table name");
        }
        if (presplit > 1 && rows == 0) {
            throw new UsageException("--presplit=" + presplit + " needs --rows=TOTAL to place the split keys");
        }
        if (presplit > rows && rows > 0) {
            throw new UsageException("--presplit=" + presplit + " exceeds --rows=" + rows);
        }
        if (report != null && !verb.equals("metrics")) {
            throw new UsageException("--report is only for admin metrics");
        }
        return new Command(verb, table, family, presplit, rows, compress, durability, gc, report, encoding, bloom, inMemory,
            json, server, ycsbSplits);
    }

    /** --splits=pe (the default: pe's keys) or ycsb (YCSB's keys). */
    private static boolean ycsbSplits(String value) throws UsageException {
        return switch (value) {
            case "pe" -> false;
            case "ycsb" -> true;
            default -> throw new UsageException("--splits must be pe or ycsb, got '" + value + "'");
        };
    }

    /** A named value ({@code parse} throws IllegalArgumentException for an unknown name). */
    private static <T> T parsed(String flag, String value, Function<String, T> parse) throws UsageException {
        String name = nonEmpty(flag, value);
        try {
            return parse.apply(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + ": " + e.getMessage());
        }
    }

    private static boolean trueOrFalse(String flag, String value) throws UsageException {
        String b = nonEmpty(flag, value);
        if (!b.equalsIgnoreCase("true") && !b.equalsIgnoreCase("false")) {
            throw new UsageException(flag + " must be true or false, got '" + b + "'");
        }
        return Boolean.parseBoolean(b.toLowerCase(Locale.ROOT));
    }

    private static String serverAddress(String flag) throws UsageException {
        String v = flag.startsWith("--server=") ? flag.substring("--server=".length()) : "";
        int colon = v.lastIndexOf(':');
        if (colon > 0 && v.substring(colon + 1).matches("\\d{1,5}")) {
            return v;
        }
        throw new UsageException("--server needs a region server's address: --server=HOST:PORT, got '" + flag + "'");
    }

    private static String reportPrefix(String flag) throws UsageException {
        if (!flag.startsWith("--report=") || flag.length() == "--report=".length()) {
            throw new UsageException("--report needs a value: --report=PREFIX (writes PREFIX.json)");
        }
        return flag.substring("--report=".length());
    }

    private static String nonEmpty(String flag, String value) throws UsageException {
        if (value.isEmpty()) {
            throw new UsageException(flag + " needs a value: " + flag + "=...");
        }
        return value;
    }

    private static int positive(String flag, String value) throws UsageException {
        try {
            int n = Integer.parseInt(nonEmpty(flag, value));
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new UsageException(flag + " must be a positive integer, got '" + value + "'");
    }
}
