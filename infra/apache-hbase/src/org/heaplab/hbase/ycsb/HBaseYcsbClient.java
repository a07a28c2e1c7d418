package org.heaplab.hbase.ycsb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.heaplab.ycsb.Counters;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The YCSB binding of Apache HBase 2.6 ({@code hbase-lab ycsb}), over HBase's own client: the same
 * mapping as the engine's binding (org.heaplab.ycsb.EngineClient), so one lab phase measures both servers
 * alike. The two are kept alike on purpose, method for method: read them side by side to see where the
 * engine's client API follows HBase's and where it differs (HBase's cells, its Admin, its Table per thread). A YCSB record is one row; each field one column (qualifier = field name) of the family
 * {@code columnfamily} (default {@code family}).
 *
 * <ul>
 *   <li>read: one Get of the requested columns (all when {@code fields} is null); an empty row is NOT_FOUND;</li>
 *   <li>scan: a scanner from {@code startkey} for at most {@code recordcount} rows (caching = recordcount,
 *       at most 100, so a short scan is one call);</li>
 *   <li>insert and update: one Put, sent at once (no client-side write buffer, as the engine's binding);</li>
 *   <li>delete: one Delete of the whole row;</li>
 *   <li>increments (the increment workload): Table.incrementColumnValue.</li>
 * </ul>
 * One Connection per JVM, shared by the YCSB threads (an HBase Connection is thread-safe and heavy; each
 * thread takes its own light Table from it). A failed call returns ERROR, its first cause printed once.
 * Compiled for Java 17: it runs inside the engine's YCSB launcher, which needs 17.
 */
public class HBaseYcsbClient extends DB implements Counters.Source {
  public static final String COLUMN_FAMILY_PROPERTY = "columnfamily";
  public static final String COLUMN_FAMILY_DEFAULT = "family";
  private static final int MAX_SCAN_CACHING = 100;
  private static final AtomicBoolean ERROR_PRINTED = new AtomicBoolean();

  private static final Object LOCK = new Object();
  private static Connection shared;
  private static int users;

  private Connection connection;
  private byte[] family;
  private final Map<String, Table> tables = new ConcurrentHashMap<>();

  /** The JVM's connection (opened by its first user), from hbase-site.xml on the classpath. */
  static Connection acquire() throws IOException {
    synchronized (LOCK) {
      if (shared == null) {
        shared = ConnectionFactory.createConnection(HBaseConfiguration.create());
      }
      users++;
      return shared;
    }
  }

  /** Its last user closes it. */
  static void release() {
    synchronized (LOCK) {
      if (--users == 0 && shared != null) {
        try {
          shared.close();
        } catch (IOException e) {
          // closing at the end of the run: nothing left to save
        }
        shared = null;
      }
    }
  }

  @Override
  public void init() throws DBException {
    Properties props = getProperties();
    family = bytes(props.getProperty(COLUMN_FAMILY_PROPERTY, COLUMN_FAMILY_DEFAULT));
    String table = props.getProperty("table", "usertable");
    boolean exists;
    try {
      connection = acquire();
      try (Admin admin = connection.getAdmin()) {
        exists = admin.tableExists(TableName.valueOf(table));
      }
    } catch (IOException | RuntimeException e) {
      throw new DBException("cannot reach Apache HBase: " + e.getMessage());
    }
    // As YCSB's own HBase binding: the table must exist (made by `hbase-lab admin create`).
    if (!exists) {
      throw new DBException("table " + table + " does not exist; create it first: hbase-lab admin create " + table
          + " --family=" + new String(family, StandardCharsets.UTF_8) + " [--presplit=N --rows="
          + props.getProperty("recordcount", "RECORDS") + " --splits=ycsb]");
    }
  }

  @Override
  public void cleanup() {
    tables.values().forEach(HBaseYcsbClient::closeQuietly);
    tables.clear();
    if (connection != null) {
      connection = null;
      release();
    }
  }

  private Table table(String name) throws IOException {
    Table t = tables.get(name);
    if (t == null) {
      t = connection.getTable(TableName.valueOf(name));
      tables.put(name, t);
    }
    return t;
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Get get = new Get(bytes(key));
      if (fields == null) {
        get.addFamily(family);
      } else {
        for (String f : fields) {
          get.addColumn(family, bytes(f));
        }
      }
      Result r = table(table).get(get);
      if (r == null || r.isEmpty()) {
        return Status.NOT_FOUND;
      }
      copy(r, null, result);
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed("read", e);
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    Scan scan = new Scan().withStartRow(bytes(startkey)).addFamily(family)
        .setCaching(Math.max(1, Math.min(recordcount, MAX_SCAN_CACHING)));
    try (ResultScanner scanner = table(table).getScanner(scan)) {
      Result r;
      while (result.size() < recordcount && (r = scanner.next()) != null) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        copy(r, fields, row);
        result.add(row);
      }
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed("scan", e);
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return put("update", table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return put("insert", table, key, values);
  }

  private Status put(String op, String table, String key, Map<String, ByteIterator> values) {
    try {
      Put put = new Put(bytes(key));
      for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
        put.addColumn(family, bytes(e.getKey()), e.getValue().toArray());
      }
      table(table).put(put);
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed(op, e);
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      table(table).delete(new Delete(bytes(key)));
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed("delete", e);
    }
  }

  /** The increment workload's counters: HBase's incrementColumnValue over the shared connection. */
  @Override
  public Counters openCounters(Properties props) throws IOException {
    Connection c = acquire();
    Map<String, Table> open = new ConcurrentHashMap<>();
    return new Counters() {
      @Override
      public void increment(String table, byte[] row, byte[] fam, byte[] column, long amount) throws IOException {
        Table t = open.get(table);
        if (t == null) {
          t = c.getTable(TableName.valueOf(table));
          open.put(table, t);
        }
        t.incrementColumnValue(row, fam, column, amount);
      }

      @Override
      public void close() {
        open.values().forEach(HBaseYcsbClient::closeQuietly);
        release();
      }
    };
  }

  /** The row's columns (only {@code fields} when not null) as YCSB fields. */
  private static void copy(Result r, Set<String> fields, Map<String, ByteIterator> out) {
    for (Cell cell : r.rawCells()) {
      String name = new String(CellUtil.cloneQualifier(cell), StandardCharsets.UTF_8);
      if (fields == null || fields.contains(name)) {
        out.put(name, new ByteArrayByteIterator(CellUtil.cloneValue(cell)));
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void closeQuietly(Table t) {
    try {
      t.close();
    } catch (IOException e) {
      // a Table holds no resources of its own: nothing to save
    }
  }

  /** ERROR, and the first failure's cause on stderr (one line per JVM, not one per operation). */
  private static Status failed(String op, Exception e) {
    if (ERROR_PRINTED.compareAndSet(false, true)) {
      System.err.println("WARN: ycsb " + op + " failed (further failures are only counted): " + e.getMessage());
    }
    return Status.ERROR;
  }
}
