package org.heaplab.tools;

import java.util.List;
import org.heaplab.core.io.Compression;

/**
 * The parsed `pe` command line: HBase PerformanceEvaluation's flags (hbase-internals.md section 8)
 * plus --report. --writeToWAL=false (HBase PE's flag) makes every put SKIP_WAL. Immutable; {@link #parse} validates everything before anything runs.
 */
public record PeOptions(boolean nomapred, boolean oneCon, int valueSize, int rows, boolean autoFlush,
                        int presplit, int multiPut, String table, Compression compress, String report,
                        PeCommand command, int clients, String args, boolean writeToWAL) {

    public static final String USAGE = "Usage: bin/engine pe [--nomapred] [--oneCon=true|false] [--valueSize=N] [--rows=N]"
        + " [--autoFlush=true|false] [--presplit=N] [--multiPut=N] [--table=T] [--compress=NONE|SNAPPY]"
        + " [--writeToWAL=true|false (false: puts skip the WAL, durability SKIP_WAL; default true: the table's)]"
        + " [--report=PREFIX] <sequentialWrite|randomWrite|randomRead> <nclients>";

    /** HBase PE's defaults. */
    public static final int DEFAULT_VALUE_SIZE = 1000;
    public static final int DEFAULT_ROWS = 1_048_576;
    public static final String DEFAULT_TABLE = "TestTable";

    public static PeOptions parse(List<String> argv) throws UsageException {
        boolean nomapred = false;
        boolean oneCon = false;
        int valueSize = DEFAULT_VALUE_SIZE;
        int rows = DEFAULT_ROWS;
        boolean autoFlush = false;
        boolean writeToWAL = true;
        int presplit = 0;
        int multiPut = 0;
        String table = DEFAULT_TABLE;
        Compression compress = null;
        String report = null;
        PeCommand command = null;
        Integer clients = null;
        for (String a : argv) {
            if (a.startsWith("--")) {
                int eq = a.indexOf('=');
                String flag = eq < 0 ? a : a.substring(0, eq);
                String value = eq < 0 ? null : a.substring(eq + 1);
                switch (flag) {
                    case "--nomapred" -> {
                        noValue(flag, value);
                        nomapred = true;
                    }
                    case "--oneCon" -> oneCon = bool(flag, value);
                    case "--autoFlush" -> autoFlush = bool(flag, value);
                    case "--writeToWAL" -> writeToWAL = bool(flag, value);
                    case "--valueSize" -> valueSize = positive(flag, value);
                    case "--rows" -> rows = positive(flag, value);
                    case "--presplit" -> presplit = nonNegative(flag, value);
                    case "--multiPut" -> multiPut = nonNegative(flag, value);
                    case "--table" -> {
                        table = string(flag, value);
                        if (!table.matches("[A-Za-z0-9_.-]{1,128}")) {
                            throw new UsageException("--table: illegal table name '" + table + "': use letters, digits, '_', '-', '.'");
                        }
                    }
                    case "--compress" -> {
                        try {
                            compress = Compression.parse(string(flag, value));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException("--compress: " + e.getMessage());
                        }
                    }
                    case "--report" -> report = string(flag, value);
                    default -> throw new UsageException("unknown flag " + flag);
                }
            } else if (a.startsWith("-") && !a.matches("-?\\d+")) {
                throw new UsageException("unknown flag " + a + " (flags look like --name=value)");
            } else if (command == null) {
                command = PeCommand.parse(a);
            } else if (clients == null) {
                try {
                    clients = Integer.parseInt(a);
                } catch (NumberFormatException e) {
                    throw new UsageException("nclients must be a positive integer, got '" + a + "'");
                }
                if (clients < 1) {
                    throw new UsageException("nclients must be a positive integer, got '" + a + "'");
                }
            } else {
                throw new UsageException("unexpected argument '" + a + "' after <command> <nclients>");
            }
        }
        if (command == null) {
            throw new UsageException("missing command: one of " + PeCommand.names());
        }
        if (clients == null) {
            throw new UsageException("missing <nclients> after " + command.cliName());
        }
        if (multiPut > 0 && !autoFlush) {
            throw new UsageException("--multiPut requires --autoFlush=true (as in HBase PE)");
        }
        if ((long) rows * clients > Integer.MAX_VALUE) {
            throw new UsageException("--rows x nclients must stay below " + Integer.MAX_VALUE);
        }
        if (presplit > (long) rows * clients) {
            throw new UsageException("--presplit=" + presplit + " exceeds the total rows (" + (long) rows * clients + ")");
        }
        return new PeOptions(nomapred, oneCon, valueSize, rows, autoFlush, presplit, multiPut, table, compress, report,
            command, clients, String.join(" ", argv), writeToWAL);
    }

    public int totalRows() {
        return rows * clients;
    }

    private static void noValue(String flag, String value) throws UsageException {
        if (value != null) {
            throw new UsageException(flag + " takes no value, got '" + value + "'");
        }
    }

    private static String string(String flag, String value) throws UsageException {
        if (value == null || value.isEmpty()) {
            throw new UsageException(flag + " needs a value: " + flag + "=...");
        }
        return value;
    }

    private static boolean bool(String flag, String value) throws UsageException {
        String v = string(flag, value);
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new UsageException(flag + " must be true or false, got '" + v + "'");
    }

    private static int nonNegative(String flag, String value) throws UsageException {
        String v = string(flag, value);
        try {
            int n = Integer.parseInt(v);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new UsageException(flag + " must be a non-negative integer, got '" + v + "'");
    }

    private static int positive(String flag, String value) throws UsageException {
        String v = string(flag, value);
        try {
            int n = Integer.parseInt(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new UsageException(flag + " must be a positive integer, got '" + v + "'");
    }
}
