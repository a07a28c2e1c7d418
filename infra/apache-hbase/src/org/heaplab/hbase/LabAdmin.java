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
import org.apache.hadoop.hbase.PerformanceEvaluation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;
import org.heaplab.tools.YcsbKeys;

/**
 * The admin steps the labs need on Apache HBase, through HBase's own Admin API (the hbase shell needs
 * JRuby, which Maven Central's HBase artifacts do not bring): wait until the standalone server serves;
 * create a table as HBase's PerformanceEvaluation would (its family, its split keys); flush; major-compact
 * and wait until the compaction is done; drop; the server's counters ({@link ServerMetricsReport}); shut the
 * standalone server down in order, as HBase's own stop-hbase.sh asks it to (its region server leaves
 * ZooKeeper before the master stops ZooKeeper; a SIGTERM instead runs the master's shutdown hook first, and the
 * region server then retries its ZooKeeper delete against the stopped ZooKeeper for about 20 s). Same
 * words as the engine's `bin/engine admin ...`, so one lab phase runs on both. Written for Java 11
 * (compiled with --release 11): CMS variants run it on a JDK 11.
 */
public final class LabAdmin {
  static final String USAGE = "LabAdmin wait [SECONDS [--servers=N]] | create TABLE [--presplit=N --rows=TOTAL [--splits=pe|ycsb]]"
      + " [--compress=NONE|SNAPPY|GZ|LZ4|ZSTD] [--blockEncoding=NONE|DIFF|FAST_DIFF|PREFIX|ROW_INDEX_V1]"
      + " [--bloom=NONE|ROW|ROWCOL] [--family=info0] | flush|compact|drop TABLE | [--report=PREFIX] metrics [--gc]"
      + " | shutdown";

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
      case "shutdown":
        withAdmin(conf, Admin::shutdown);
        break;
      default:
        usage("unknown command '" + args[0] + "'; valid: wait, create, flush, compact, drop, metrics, shutdown");
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

  /**
   * The table HBase's PerformanceEvaluation would make: family info0, ROW blooms, the given compression
   * and encoding, and with --presplit=N --rows=TOTAL the N - 1 split keys of `pe --presplit=N` over TOTAL
   * rows (PerformanceEvaluation.getSplits: key (TOTAL / N) x i, as pe formats keys), so a later pe run
   * with --presplit=N finds the table it would have made and keeps it; with --splits=ycsb the split keys
   * that spread YCSB's first TOTAL keys evenly (the engine's YcsbKeys, as `bin/engine admin create`);
   * --durability and --inMemory as HBase's table and family settings. The flags are the engine's `admin
   * create` flags; any other is refused. An existing table is dropped first.
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
    ColumnFamilyDescriptorBuilder family = ColumnFamilyDescriptorBuilder
        .newBuilder(Bytes.toBytes(o.getOrDefault("family", PerformanceEvaluation.FAMILY_NAME_BASE + "0")))
        .setCompressionType(Compression.Algorithm.valueOf(o.getOrDefault("compress", "NONE").toUpperCase(Locale.ROOT)))
        .setDataBlockEncoding(DataBlockEncoding.valueOf(o.getOrDefault("blockEncoding", "NONE").toUpperCase(Locale.ROOT)))
        .setBloomFilterType(BloomType.valueOf(o.getOrDefault("bloom", "ROW").toUpperCase(Locale.ROOT)))
        .setInMemory(Boolean.parseBoolean(o.getOrDefault("inMemory", "false")));
    TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(name).setColumnFamily(family.build())
        .setDurability(Durability.valueOf(o.getOrDefault("durability", "USE_DEFAULT").toUpperCase(Locale.ROOT)));
    drop(admin, name);
    if (presplit > 1 && splitKind.equals("ycsb")) {
      admin.createTable(table.build(), YcsbKeys.splits(presplit, (int) Math.min(rows, Integer.MAX_VALUE)));
    } else if (presplit > 1) {
      byte[][] splits = new byte[presplit - 1][];
      long jump = rows / presplit;
      for (int i = 0; i < splits.length; i++) {
        splits[i] = PerformanceEvaluation.format(jump * (i + 1));
      }
      admin.createTable(table.build(), splits);
    } else {
      admin.createTable(table.build());
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
   * Serving: {@code servers} region servers are live (one in standalone mode; a cluster's, so a table
   * created next spreads over them all), hbase:meta answers (listing tables reads it) and the master has
   * finished initializing (listing namespaces asks for that; until then a create gets "Master is
   * initializing").
   */
  private static void waitUntilServing(Configuration conf, int seconds, int servers) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String last = "";
    while (System.nanoTime() < deadline) {
      try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
        int live = admin.getRegionServers().size();
        if (live >= servers && admin.isTableAvailable(TableName.META_TABLE_NAME)) {
          admin.listTableNames();
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
