package org.heaplab.tools;

import java.util.List;
import java.util.Set;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;

/**
 * The parsed `pe` command line: HBase PerformanceEvaluation's flags (hbase-internals.md section 8)
 * plus --report. --writeToWAL=false (HBase PE's flag) makes every put SKIP_WAL. The family options
 * --blockEncoding, --bloomFilter, --inmemory (and --compress) apply when pe creates the table; --caching
 * is the scans' rows per RPC (HBase PE's default 30). Immutable; {@link #parse} validates everything
 * before anything runs. --sampleRate=F (HBase PE's, randomRead only): each client still walks its
 * --rows row numbers but only every (int) (1 / F)-th of them issues a get, so about rows x F gets per
 * client are sent and measured. Flags HBase PE has and this engine does not are refused by name
 * ({@link #UNSUPPORTED}), apart from words that are no flag at all. --reportInterval=MS (ours, like
 * --report) sets the interval log's interval: 1000 ms unless given; lab 01 takes 100 ms so that a latency
 * spike can be placed against a GC pause finer than a second.
 */
public record PeOptions(boolean nomapred, boolean oneCon, int valueSize, int rows, boolean autoFlush,
                        int presplit, int multiPut, String table, Compression compress, String report,
                        PeCommand command, int clients, String args, boolean writeToWAL,
                        DataBlockEncoding blockEncoding, BloomType bloomFilter, boolean inMemory, int caching,
                        double sampleRate, long reportIntervalMs) {

    public static final String USAGE = "Usage: bin/engine pe [--nomapred] [--oneCon=true|false] [--valueSize=N] [--rows=N]"
        + " [--autoFlush=true|false] [--presplit=N] [--multiPut=N] [--table=T] [--compress=NONE|SNAPPY]"
        + " [--writeToWAL=true|false (false: puts skip the WAL, durability SKIP_WAL; default true: the table's)]"
        + " [--blockEncoding=NONE|DIFF|ROW_INDEX_V1] [--bloomFilter=NONE|ROW] [--inmemory=true|false] [--caching=N (30)]"
        + " [--sampleRate=F (0 < F <= 1, randomRead only: every (int)(1/F)-th row of a client's --rows issues a get,"
        + " about rows x F gets per client; default 1.0)]"
        + " [--report=PREFIX] [--reportInterval=MS (the interval log's interval, 10..60000; default 1000)]"
        + " <sequentialWrite|randomWrite|randomRead|sequentialRead|scan|scanRange100|increment> <nclients>";

    /** HBase PE's defaults. */
    public static final int DEFAULT_VALUE_SIZE = 1000;
    public static final int DEFAULT_ROWS = 1_048_576;
    public static final String DEFAULT_TABLE = "TestTable";
    /** HBase PE's scan caching. */
    public static final int DEFAULT_CACHING = 30;

    /**
     * HBase PE's flags this engine's pe does not implement (HBase 2.x parseOpts): refused with their own
     * message so a student porting an HBase command line knows it is not a typo.
     */
    public static final Set<String> UNSUPPORTED = Set.of("--filterAll", "--families", "--columns",
        "--inmemoryCompaction", "--measureAfter", "--period", "--latency", "--latencyThreshold", "--traceRate",
        "--valueRandom", "--valueZipf", "--splitPolicy", "--randomSleep", "--cycles", "--replicas", "--bufferSize",
        "--size", "--addColumns", "--asyncPrefetch", "--startRow", "--flushCommits", "--connCount", "--multiGet",
        "--usetags", "--numoftags", "--blockSize", "--cacheBlocks", "--scanReadType");

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
        DataBlockEncoding blockEncoding = null;
        BloomType bloomFilter = null;
        boolean inMemory = false;
        int caching = DEFAULT_CACHING;
        double sampleRate = 1.0;
        String report = null;
        long reportIntervalMs = IntervalLog.DEFAULT_INTERVAL_MS;
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
                    case "--blockEncoding" -> {
                        try {
                            blockEncoding = DataBlockEncoding.parse(string(flag, value));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException("--blockEncoding: " + e.getMessage());
                        }
                    }
                    case "--bloomFilter" -> {
                        try {
                            bloomFilter = BloomType.parse(string(flag, value));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException("--bloomFilter: " + e.getMessage());
                        }
                    }
                    case "--inmemory" -> inMemory = bool(flag, value);
                    case "--caching" -> caching = positive(flag, value);
                    case "--sampleRate" -> sampleRate = sampleRate(flag, value);
                    case "--report" -> report = string(flag, value);
                    case "--reportInterval" -> {
                        reportIntervalMs = positive(flag, value);
                        if (reportIntervalMs < 10 || reportIntervalMs > 60_000) {
                            throw new UsageException("--reportInterval must be 10..60000 ms, got " + reportIntervalMs);
                        }
                    }
                    default -> throw new UsageException(UNSUPPORTED.contains(flag)
                        ? "unsupported flag " + flag + ": HBase PE has it, this engine's pe does not"
                        : "unknown flag " + flag);
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
        if (sampleRate < 1.0 && command != PeCommand.RANDOM_READ) {
            throw new UsageException("--sampleRate is supported by randomRead only (as in HBase PE), not by "
                + command.cliName());
        }
        if ((long) rows * clients > Integer.MAX_VALUE) {
            throw new UsageException("--rows x nclients must stay below " + Integer.MAX_VALUE);
        }
        if (presplit > (long) rows * clients) {
            throw new UsageException("--presplit=" + presplit + " exceeds the total rows (" + (long) rows * clients + ")");
        }
        return new PeOptions(nomapred, oneCon, valueSize, rows, autoFlush, presplit, multiPut, table, compress, report,
            command, clients, String.join(" ", argv), writeToWAL, blockEncoding, bloomFilter, inMemory, caching, sampleRate,
            reportIntervalMs);
    }

    public int totalRows() {
        return rows * clients;
    }

    /** HBase PE's everyN: a client issues a call for its row numbers i with i % everyN == 0. */
    public int everyN() {
        return (int) (1.0 / sampleRate);
    }

    /** Rows of a client starting at {@code startRow} that issue a call (all of them without --sampleRate). */
    public int sampledRows(int startRow) {
        int n = everyN();
        int first = (startRow + n - 1) / n * n;
        int end = startRow + rows;
        return first >= end ? 0 : (end - 1 - first) / n + 1;
    }

    private static double sampleRate(String flag, String value) throws UsageException {
        String v = string(flag, value);
        try {
            double f = Double.parseDouble(v);
            if (f > 0 && f <= 1) {
                return f;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new UsageException(flag + " must be a number with 0 < F <= 1, got '" + v + "'");
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
