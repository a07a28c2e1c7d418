package org.heaplab.hbase;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * The few admin steps lab 11 needs on Apache HBase, through HBase's own Admin API (the hbase shell needs
 * JRuby, which Maven Central's HBase artifacts do not bring): wait until the standalone server serves,
 * flush a table, major-compact it and wait until the compaction is done, drop it. Same words as the
 * engine's `bin/engine admin flush|compact|drop TABLE`, so one lab phase runs on both.
 */
public final class LabAdmin {
  private LabAdmin() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      usage("missing command");
    }
    Configuration conf = HBaseConfiguration.create();
    // One attempt per call, short timeouts: `wait` loops itself, a step fails with one line.
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("zookeeper.recovery.retry", 1);
    try {
      switch (args[0]) {
        case "wait" -> waitUntilServing(conf, args.length > 1 ? Integer.parseInt(args[1]) : 120);
        case "flush" -> withAdmin(conf, admin -> admin.flush(table(args)));
        case "compact" -> withAdmin(conf, admin -> majorCompact(admin, table(args)));
        case "drop" -> withAdmin(conf, admin -> {
          TableName t = table(args);
          if (admin.tableExists(t)) {
            admin.disableTable(t);
            admin.deleteTable(t);
          }
        });
        default -> usage("unknown command '" + args[0] + "'; valid: wait, flush, compact, drop");
      }
    } catch (IOException e) {
      System.err.println("ERROR: " + args[0] + ": " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()));
      System.exit(1);
    }
    System.out.println(String.join(" ", args) + ": done");
    System.exit(0);
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
    if (args.length < 2) {
      usage(args[0] + " needs a table name");
    }
    return TableName.valueOf(args[1]);
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

  /** Serving: a region server is live and hbase:meta answers (listing tables reads it). */
  private static void waitUntilServing(Configuration conf, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String last = "";
    while (System.nanoTime() < deadline) {
      try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
        if (!admin.getRegionServers().isEmpty() && admin.isTableAvailable(TableName.META_TABLE_NAME)) {
          admin.listTableNames();
          return;
        }
        last = "no region server online yet";
      } catch (IOException | RuntimeException e) {
        last = e.getClass().getSimpleName() + ": " + firstLine(e.getMessage());
      }
      Thread.sleep(1000);
    }
    System.err.println("ERROR: HBase not serving after " + seconds + " s: " + last);
    System.exit(1);
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }

  private static void usage(String why) {
    System.err.println("ERROR: " + why + "; usage: LabAdmin wait [SECONDS] | flush|compact|drop TABLE");
    System.exit(2);
  }
}
