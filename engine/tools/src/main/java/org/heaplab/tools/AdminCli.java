package org.heaplab.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.heaplab.client.Admin;
import org.heaplab.client.Connection;
import org.heaplab.client.ResultScanner;
import org.heaplab.client.Scan;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.StoreFileInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.conf.EngineEnv;

/**
 * {@code bin/engine admin}: table management against the region server of engine-site.xml.
 *
 * <pre>
 * admin create &lt;table&gt; [--family=info0] [--presplit=N --rows=TOTAL [--splits=pe|ycsb]] [--compress=NONE|SNAPPY]
 *              [--durability=USE_DEFAULT|SKIP_WAL|ASYNC_WAL|SYNC_WAL|FSYNC_WAL]
 *              [--blockEncoding=NONE|DIFF|ROW_INDEX_V1] [--bloom=NONE|ROW] [--inMemory=true|false]
 * admin drop &lt;table&gt; | flush &lt;table&gt; | compact &lt;table&gt; | regions &lt;table&gt; | count &lt;table&gt; [--json]
 * admin tables (or list) | status
 * admin [--report=PREFIX] metrics [--gc] [--server=HOST:PORT] [--report=PREFIX]
 * </pre>
 *
 * The admin connects like every client (engine-site.xml: the master of hbase.masters, else the
 * standalone region server). status prints the cluster's status (CLUSTER_STATUS) as indented JSON;
 * regions asks each region server holding the table for its regions; count scans the table and prints
 * the number of rows (with --json: {"table": ..., "rows": n}); flush and compact return when every
 * server is done.
 *
 * metrics prints the server's metrics JSON (ServerMetrics) on stdout and, with --report, also writes it
 * to PREFIX.json; --gc makes the server collect garbage first, so heap used is what is live.
 *
 * --presplit=N --rows=TOTAL splits like `pe --presplit=N` over TOTAL rows, so a later pe run with
 * rows x clients = TOTAL finds the table it would have made. With --splits=ycsb the split keys spread YCSB's
 * keys of TOTAL records evenly instead (engine/docs/ycsb.md).
 * Exit codes as pe: 0, 1 runtime, 2 usage.
 */
public final class AdminCli {
    public static final String USAGE = "Usage: bin/engine admin create <table> [--family=info0] [--presplit=N --rows=TOTAL"
        + " [--splits=pe|ycsb]]"
        + " [--compress=NONE|SNAPPY] [--durability=USE_DEFAULT|SKIP_WAL|ASYNC_WAL|SYNC_WAL|FSYNC_WAL]"
        + " [--blockEncoding=NONE|DIFF|ROW_INDEX_V1] [--bloom=NONE|ROW] [--inMemory=true|false] | drop <table> | flush <table>"
        + " | compact <table> | regions <table> | count <table> [--json] | tables | list | status"
        + " | metrics [--gc] [--server=HOST:PORT] [--report=PREFIX]";

    /** Rows per SCAN call of admin count. */
    static final int COUNT_CACHING = 1000;

    /** A parsed admin command line. */
    record Command(String verb, String table, String family, int presplit, int rows, Compression compress,
                   Durability durability, boolean gc, String report, DataBlockEncoding encoding, BloomType bloom,
                   boolean inMemory, boolean json, String server, boolean ycsbSplits) {
        Command(String verb, String table, String family, int presplit, int rows, Compression compress, Durability durability) {
            this(verb, table, family, presplit, rows, compress, durability, false, null, DataBlockEncoding.NONE,
                BloomType.ROW, false, false, null, false);
        }
    }

    private AdminCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Command c;
        try {
            c = parse(args);
        } catch (UsageException e) {
            err.println("ERROR: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        if (c.verb().equals("help")) {
            out.println(USAGE);
            return 0;
        }
        try {
            Configuration conf = EngineEnv.fromSystem().loadConfiguration();
            try (Connection conn = Connection.open(conf)) {
                execute(c, conn, out);
            }
            return 0;
        } catch (IOException | ConfigurationException e) {
            err.println("ERROR: " + e.getMessage());
            return 1;
        }
    }

    /** The command line read into a command ({@link AdminArgs}). */
    static Command parse(String[] args) throws UsageException {
        return AdminArgs.parse(args);
    }

    static void execute(Command c, Connection conn, PrintStream out) throws IOException {
        Admin admin = conn.getAdmin();
        switch (c.verb()) {
            case "create" -> {
                TableDescriptor desc;
                try {
                    desc = new TableDescriptor(c.table(), c.family().getBytes(StandardCharsets.UTF_8), c.compress(),
                        c.durability(), c.encoding(), c.bloom(), c.inMemory());
                } catch (IllegalArgumentException e) {
                    throw new IOException(e.getMessage());
                }
                byte[][] splits = c.ycsbSplits() ? YcsbKeys.splits(c.presplit(), c.rows()) : PeData.splits(c.presplit(), c.rows());
                admin.createTable(desc, splits);
                out.println("created table " + c.table() + " with " + (splits.length + 1) + " region(s), family "
                    + c.family() + ", compression " + c.compress() + ", durability " + c.durability() + ", block encoding "
                    + c.encoding() + ", bloom " + c.bloom() + ", in memory " + c.inMemory());
            }
            case "drop" -> {
                admin.dropTable(c.table());
                out.println("dropped table " + c.table());
            }
            case "flush" -> {
                admin.flush(c.table());
                out.println("flushed table " + c.table());
            }
            case "compact" -> {
                admin.majorCompact(c.table());
                out.println("major-compacted table " + c.table());
            }
            case "regions" -> printRegions(admin.regionsByServer(c.table()), out);
            case "list", "tables" -> admin.tables().forEach(out::println);
            case "status" -> out.println(JsonPretty.format(admin.clusterStatus()));
            case "count" -> {
                long n = countRows(conn.getTable(c.table()));
                out.println(c.json() ? "{\"table\": \"" + c.table() + "\", \"rows\": " + n + "}" : Long.toString(n));
            }
            case "metrics" -> {
                String json = c.server() == null ? admin.metrics(c.gc()) : admin.metrics(c.server(), c.gc());
                out.println(json);
                if (c.report() != null) {
                    Path file = Path.of(c.report() + ".json");
                    if (file.getParent() != null) {
                        Files.createDirectories(file.getParent());
                    }
                    Files.writeString(file, json + "\n", StandardCharsets.UTF_8);
                }
            }
            default -> throw new IllegalStateException(c.verb());
        }
    }

    /** Rows of {@code table}, counted by scanning it region by region. */
    static long countRows(Table table) throws IOException {
        long n = 0;
        try (ResultScanner s = table.getScanner(new Scan().setCaching(COUNT_CACHING))) {
            while (s.next() != null) {
                n++;
            }
        }
        return n;
    }

    /** One line per region (its server first), each store file below its region. */
    static void printRegions(Map<String, List<RegionInfo>> byServer, PrintStream out) {
        out.println("server\tregion\tstart_key\tend_key\tmemstore_bytes\tstore_files\tstore_file_bytes\tcells");
        byServer.forEach((server, regions) -> {
            for (RegionInfo r : regions) {
                printRegion(server, r, out);
            }
        });
    }

    private static void printRegion(String server, RegionInfo r, PrintStream out) {
        long bytes = 0;
        long cells = 0;
        for (StoreFileInfo f : r.storeFiles()) {
            bytes += f.sizeBytes();
            cells += f.cellCount();
        }
        out.println(server + "\t" + r.encodedName() + "\t" + key(r.startKey()) + "\t" + key(r.endKey()) + "\t"
            + r.memstoreBytes() + "\t" + r.storeFiles().size() + "\t" + bytes + "\t" + cells);
        for (StoreFileInfo f : r.storeFiles()) {
            out.println("  " + f.path() + "\t" + f.sizeBytes() + " bytes\t" + f.cellCount() + " cells");
        }
    }

    private static String key(byte[] k) {
        if (k.length == 0) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        for (byte b : k) {
            if (b >= 0x20 && b < 0x7f) {
                sb.append((char) b);
            } else {
                sb.append(String.format(Locale.ROOT, "\\x%02X", b & 0xff));
            }
        }
        return sb.toString();
    }
}
