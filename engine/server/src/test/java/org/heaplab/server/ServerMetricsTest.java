package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.heaplab.client.Admin;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The METRICS call of a real server: every contract field, with values that follow what the server did. */
@Timeout(120)
class ServerMetricsTest {
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    /** The number after {@code "key": } in the object that starts at {@code "group": {} (first match). */
    static long num(String json, String group, String key) {
        int at = json.indexOf("\"" + group + "\": {");
        assertTrue(at >= 0, "group " + group + " in " + json);
        Matcher m = Pattern.compile("\"" + key + "\": (-?\\d+)").matcher(json);
        assertTrue(m.find(at), group + "." + key + " in " + json);
        return Long.parseLong(m.group(1));
    }

    private static Configuration conf(Path root, boolean basic, int offheapMb) {
        return new Configuration().set("hbase.rootdir", root.toString()).set(RegionServer.HOSTNAME_KEY, HOST)
            .set(RegionServer.PORT_KEY, "0").set("hbase.regionserver.handler.count", "4")
            .set("hbase.rpc.server.impl", "SimpleRpcServer") // request_buffers: DirectBufferPool's heap fallback
            .set("hbase.server.allocator.pool.enabled", "true")
            .set("hbase.hregion.memstore.mslab.enabled", "true")
            .set("hbase.hregion.memstore.mslab.chunksize", "65536")
            .set("hbase.hregion.memstore.mslab.max.allocation", "16384")
            .set("hbase.regionserver.offheap.global.memstore.size", String.valueOf(offheapMb))
            .set("hbase.hregion.compacting.memstore.type", basic ? "BASIC" : "NONE")
            .set("hbase.hregion.memstore.flush.size", String.valueOf(8 << 20))
            .set("hbase.memstore.inmemoryflush.threshold.factor", "0.01"); // flatten every ~80 KB
    }

    @Test
    void metricsReportMemstoreChunksIndexRequestBuffersAndWal(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, true, 4));
        try (Connection c = Connection.open(HOST, server.port())) {
            Admin admin = c.getAdmin();
            String empty = admin.metrics(false);
            assertTrue(empty.startsWith("{\"format\": 1, \"tool\": \"admin\", \"command\": \"metrics\", \"gc_requested\": false"), empty);
            assertEquals(0, num(empty, "memstore", "cells"));
            assertEquals(64, num(empty, "chunks", "pooled_free"), "4 MB of 64 KB chunks reserved at start-up");
            assertTrue(num(empty, "direct", "used_bytes") >= 4 << 20, empty);
            assertTrue(empty.contains("\"index\": \"CHUNK_MAP\""), empty);

            admin.createTable(new TableDescriptor("T", F, Compression.NONE), new byte[][] {"r5".getBytes(StandardCharsets.US_ASCII)});
            Table t = c.getTable("T");
            int rows = 3000;
            for (int batch = 0; batch < rows / 100; batch++) {
                List<Put> puts = new ArrayList<>();
                for (int i = batch * 100; i < batch * 100 + 100; i++) {
                    puts.add(new Put(String.format("r%05d", i).getBytes(StandardCharsets.US_ASCII))
                        .addColumn(F, new byte[] {'q'}, "v".repeat(100).getBytes(StandardCharsets.US_ASCII)));
                }
                t.put(puts);
            }
            String full = admin.metrics(true);
            assertTrue(full.contains("\"gc_requested\": true"), full);
            assertEquals(rows, num(full, "memstore", "cells"));
            assertEquals(2, num(full, "memstore", "regions"));
            assertTrue(num(full, "memstore", "data_bytes") > rows * 100L, full);
            assertTrue(num(full, "memstore", "flattened_segments") > 0, full);
            assertTrue(num(full, "chunks", "offheap_in_use") > 0, full);
            assertEquals(64, num(full, "chunks", "offheap_in_use") + num(full, "chunks", "pooled_free"), full);
            assertEquals(0, num(full, "chunks", "heap_fallback"), full);
            assertEquals(rows / 100 + 3, num(full, "request_buffers", "allocations") - num(empty, "request_buffers", "allocations"),
                "one buffer per call: 30 puts, the create, the client's LOCATE and this metrics call: " + full);
            assertTrue(num(full, "request_buffers", "heap_fallback") > 0, "small calls are below the minimal allocation");
            // no call in flight but this one (small: heap); the previous call's pooled response buffer goes back
            // right after its write, which may be just after the client read the answer and sent this call
            assertTrue(num(full, "request_buffers", "pooled_in_use") <= 1, full);
            assertEquals(rows / 100, num(full, "wal", "appends"), full);
            assertTrue(num(full, "wal", "syncs") > 0, full);
            assertTrue(num(full, "heap", "used_bytes") > 0 && num(full, "heap", "max_bytes") >= num(full, "heap", "committed_bytes"));

            admin.flush("T");
            String flushed = admin.metrics(false);
            assertEquals(0, num(flushed, "memstore", "cells"));
            assertEquals(0, num(flushed, "memstore", "flattened_segments"));
            assertEquals(0, num(flushed, "chunks", "offheap_in_use"), "the flushed snapshots gave their chunks back");
            assertEquals(64, num(flushed, "chunks", "pooled_free"));
        } finally {
            server.stop();
        }
    }

    @Test
    void onePoolTooSmallFallsBackToCountedHeapChunksAndThePlainSkipListSaysCslm(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, false, 1).set("hbase.hregion.memstore.chunkpool.maxsize", "0.0625"));
        try (Connection c = Connection.open(HOST, server.port())) {
            Admin admin = c.getAdmin();
            admin.createTable(new TableDescriptor("T", F, Compression.NONE), new byte[0][]);
            Table t = c.getTable("T");
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 1000; i++) { // ~150 KB: more than the one pooled 64 KB chunk
                puts.add(new Put(String.format("r%05d", i).getBytes(StandardCharsets.US_ASCII))
                    .addColumn(F, new byte[] {'q'}, "v".repeat(120).getBytes(StandardCharsets.US_ASCII)));
            }
            t.put(puts);
            String m = admin.metrics(false);
            assertTrue(m.contains("\"index\": \"CSLM\""), m);
            assertEquals(0, num(m, "memstore", "flattened_segments"));
            assertEquals(1, num(m, "chunks", "offheap_in_use"), m);
            assertTrue(num(m, "chunks", "heap_fallback") >= 2, m);
            assertEquals(num(m, "chunks", "heap_fallback"), num(m, "chunks", "onheap_in_use"), m);
        } finally {
            server.stop();
        }
    }

    @Test
    void readMetricsReportCachesStoreFilesGetsQueryCacheAndCpu(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(ReadScopeReleaseTest.offheapReads(root)
            .set("heaplab.regionserver.query.cache.size", "1"));
        try (Connection c = Connection.open(HOST, server.port())) {
            c.getAdmin().createTable(new TableDescriptor("M", F, Compression.NONE), new byte[0][]);
            org.heaplab.client.Table t = c.getTable("M");
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                puts.add(new Put(String.format("r%05d", i).getBytes(StandardCharsets.US_ASCII))
                    .addColumn(F, "0".getBytes(StandardCharsets.US_ASCII), new byte[200]));
            }
            t.put(puts);
            c.getAdmin().flush("M");
            String before = c.getAdmin().metrics(false);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 100; i++) {
                    t.get(String.format("r%05d", i * 20).getBytes(StandardCharsets.US_ASCII));
                }
            }
            int scanned = 0;
            try (org.heaplab.client.ResultScanner s = t.getScanner(new org.heaplab.client.Scan().setCaching(100))) {
                for (org.heaplab.client.Result r : s) {
                    scanned++;
                }
            }
            String after = c.getAdmin().metrics(false);
            assertEquals(300, num(after, "reads", "gets") - num(before, "reads", "gets"), after);
            assertEquals(scanned, num(after, "reads", "scanned_rows") - num(before, "reads", "scanned_rows"));
            assertEquals(20, num(after, "reads", "scan_batches") - num(before, "reads", "scan_batches"), "2000 rows by 100 (the last batch says it is the end)");
            assertTrue(num(after, "store_files", "data_blocks_read") > num(before, "store_files", "data_blocks_read"), after);
            assertTrue(num(after, "store_files", "bytes_read") > 0, after);
            assertEquals(1, num(after, "store_files", "count"), after);
            // the one store file's bytes on disk: 2000 cells of a 200-byte value, uncompressed, and its blocks' index
            long onDisk;
            try (var files = Files.walk(root)) {
                onDisk = files.filter(f -> f.toString().endsWith(".sf")).mapToLong(f -> f.toFile().length()).sum();
            }
            assertEquals(onDisk, num(after, "store_files", "size_bytes"), after);
            assertTrue(onDisk > 2000L * 200, "the store file holds every value: " + onDisk);
            assertTrue(after.contains("\"block_cache\": {\"caches\": [{\"name\": \"lru\""), after);
            Matcher bucket = Pattern.compile("\\{\"name\": \"bucket\", \"capacity_bytes\": (\\d+).*?\"by_type\": \\{\"data\": "
                + "\\{\"hits\": (\\d+), \"misses\": (\\d+), \"hit_ratio\": ([0-9.]+)\\}").matcher(after);
            assertTrue(bucket.find(), after);
            long capacity = Long.parseLong(bucket.group(1));
            assertTrue(capacity > 28L << 20 && capacity <= 32L << 20, "whole buckets of hbase.bucketcache.size=32: " + capacity);
            assertTrue(Long.parseLong(bucket.group(2)) > 0, "data blocks hit in the bucket cache: " + after);
            assertTrue(after.contains("\"leaf_index\": {\"hits\": ") && after.contains("\"bloom\": {\"hits\": "), after);
            for (String f : new String[] {"evictions", "evicted_blocks", "failed_inserts", "wasted_bytes", "used_bytes", "block_count"}) {
                assertTrue(after.contains("\"" + f + "\": "), f + " in " + after);
            }
            assertTrue(num(after, "query_cache", "hits") - num(before, "query_cache", "hits") >= 100,
                "rounds 2 and 3 repeat round 1's gets: " + after);
            assertTrue(num(after, "query_cache", "entries") > 0, after);
            assertTrue(num(after, "process", "cpu_ms") > 0, after);
            if (Files.isReadable(Path.of("/proc/self/status"))) { // Linux: the resident set, at least the heap in use
                assertTrue(num(after, "process", "rss_bytes") >= num(after, "heap", "used_bytes"), after);
            }
            // the rpc group rides along (the HTTP endpoint's); its GET count follows the calls
            assertTrue(!before.contains("\"GET\": {"), "no GET before the reads: " + before);
            assertEquals(300, num(after, "GET", "count"), after);
            assertTrue(after.contains("\"rpc\": {\"impl\": \""), after);
            assertTrue(num(after, "rpc", "handler_busy_ms") >= num(before, "rpc", "handler_busy_ms"), after);
        } finally {
            server.stop();
        }
    }

    @Test
    void residentSetIsReadFromTheStatusFile(@TempDir Path dir) throws Exception {
        Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nVmPeak:\t 9999 kB\nVmRSS:\t  123456 kB\nRssAnon:\t 100 kB\n");
        assertEquals(123456L * 1024, ServerMetrics.residentSetBytes(status));
        Files.writeString(status, "Name:\tjava\n");
        assertEquals(-1, ServerMetrics.residentSetBytes(status), "no VmRSS line: not reported");
        assertEquals(-1, ServerMetrics.residentSetBytes(dir.resolve("absent")), "no such file (not Linux)");
    }
}
