package org.heaplab.ycsb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.heaplab.client.Connection;
import org.heaplab.client.Delete;
import org.heaplab.client.Get;
import org.heaplab.client.Put;
import org.heaplab.client.Result;
import org.heaplab.client.ResultScanner;
import org.heaplab.client.Scan;
import org.heaplab.client.Table;
import org.heaplab.core.cell.KeyValue;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The YCSB binding of the engine (YCSB's {@code -db}): one instance per YCSB client thread, over the
 * engine client library. A YCSB record is one row; each YCSB field is one column (qualifier = field
 * name) of the column family {@code columnfamily} (the HBase binding's property; default {@code family}).
 *
 * <ul>
 *   <li>read: one Get of the requested columns (all when {@code fields} is null); an empty row is NOT_FOUND;</li>
 *   <li>scan: a scanner from {@code startkey} for at most {@code recordcount} rows (caching = recordcount,
 *       at most 100, so a short scan is one call); the field subset is applied to each row;</li>
 *   <li>insert and update: one Put of the given columns (the engine's puts are upserts, as HBase's);</li>
 *   <li>delete: one Delete of the whole row.</li>
 * </ul>
 * A failed call returns ERROR (its first cause is printed once per JVM, one line); nothing throws.
 * Increments ({@link IncrementWorkload}) go through {@link #openCounters}.
 * Connections: see {@link EngineConnections} (shared by default).
 */
public class EngineClient extends DB implements Counters.Source {
    public static final String COLUMN_FAMILY_PROPERTY = "columnfamily";
    public static final String COLUMN_FAMILY_DEFAULT = "family";
    private static final int MAX_SCAN_CACHING = 100;
    private static final AtomicBoolean ERROR_PRINTED = new AtomicBoolean();

    private Connection connection;
    private byte[] family;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();

    @Override
    public void init() throws DBException {
        Properties props = getProperties();
        family = props.getProperty(COLUMN_FAMILY_PROPERTY, COLUMN_FAMILY_DEFAULT).getBytes(StandardCharsets.UTF_8);
        try {
            connection = EngineConnections.acquire(props);
        } catch (IOException | RuntimeException e) {
            throw new DBException(e.getMessage());
        }
        YcsbServerWindow.threadStarted(props); // with --report: the first thread takes the servers' "before" metrics
    }

    @Override
    public void cleanup() {
        YcsbServerWindow.threadFinished();
        EngineConnections.release(connection);
        connection = null;
    }

    /** The increment workload's counters: the engine's INCREMENT over the shared connection. */
    @Override
    public Counters openCounters(Properties props) throws IOException {
        Connection c = EngineConnections.acquire(props);
        Map<String, Table> open = new ConcurrentHashMap<>();
        return new Counters() {
            @Override
            public void increment(String table, byte[] row, byte[] family, byte[] column, long amount) throws IOException {
                open.computeIfAbsent(table, c::getTable).increment(row, family, column, amount);
            }

            @Override
            public void close() {
                EngineConnections.release(c);
            }
        };
    }

    private Table table(String name) {
        return tables.computeIfAbsent(name, connection::getTable);
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            Get get = new Get(bytes(key));
            if (fields != null) {
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
        Scan scan = new Scan().withStartRow(bytes(startkey)).setCaching(Math.max(1, Math.min(recordcount, MAX_SCAN_CACHING)));
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

    /** The row's columns of our family (only {@code fields} when not null) as YCSB fields. */
    private void copy(Result r, Set<String> fields, Map<String, ByteIterator> out) {
        for (KeyValue kv : r.cells()) {
            String name = new String(kv.qualifier(), StandardCharsets.UTF_8);
            if (fields == null || fields.contains(name)) {
                out.put(name, new ByteArrayByteIterator(kv.value()));
            }
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** ERROR, and the first failure's cause on stderr (one line per JVM, not one per operation). */
    static Status failed(String op, Exception e) {
        if (ERROR_PRINTED.compareAndSet(false, true)) {
            System.err.println("WARN: ycsb " + op + " failed (further failures are only counted): " + e.getMessage());
        }
        return Status.ERROR;
    }
}
