package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.buffers.HeapCopies;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mechanism counters (alloc, copies, rpc_calls) of a real in-JVM region server on each shipped
 * profile: N puts move them the way each path says they should. Copies are read in-process between
 * puts (the client's own calls copy nothing the counters see), the rest through the METRICS call.
 */
@Timeout(120)
class MechanismCountersTest {
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private static final Path PROFILES = Path.of("..", "dist", "src", "conf", "profiles");
    private static final int PUTS = 200;
    private static final int BATCHES = 20;
    /** 100 rows of 200-byte values: about 25 KB, above the profile's 11093-byte minimal allocation. */
    private static final int BATCH_ROWS = 100;

    private static Configuration profile(String name, Path root) {
        Path p = PROFILES.resolve(name + ".xml");
        assertTrue(Files.isRegularFile(p), "profile at " + p.toAbsolutePath());
        return new Configuration().addResource(p).set("hbase.rootdir", root.toString())
            .set(RegionServer.HOSTNAME_KEY, HOST).set(RegionServer.PORT_KEY, "0")
            .set("hbase.regionserver.handler.count", "4")
            .set("hbase.bucketcache.size", "32")
            .set("hbase.hregion.memstore.mslab.chunksize", "65536")
            .set("hbase.hregion.memstore.mslab.max.allocation", "16384");
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Put put(int i) {
        return new Put(b(String.format("row-%06d", i))).addColumn(F, Q, b("v".repeat(200)));
    }

    private static void singlePuts(Table t, int from) throws Exception {
        for (int i = from; i < from + PUTS; i++) {
            t.put(put(i));
        }
    }

    private static void batchPuts(Table t, int from) throws Exception {
        for (int batch = 0; batch < BATCHES; batch++) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < BATCH_ROWS; i++) {
                puts.add(put(from + batch * BATCH_ROWS + i));
            }
            t.put(puts);
        }
    }

    private static Table table(Connection c) throws Exception {
        c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), new byte[0][]);
        Table t = c.getTable("T");
        t.put(put(999_999)); // warm: locate, connection, first region write
        return t;
    }

    private static long num(String json, String group, String key) {
        return ServerMetricsTest.num(json, group, key);
    }

    /** 1.x: every request read into a heap byte[], every cell copied again, every response a heap byte[]. */
    @Test
    void onHeapPathCopiesEveryRequestCellAndResponse(@TempDir Path root) throws Exception {
        RegionServer server = RegionServer.start(profile("hbase1-onheap", root));
        try (Connection c = Connection.open(HOST, server.port())) {
            Table t = table(c);
            String before = c.getAdmin().metrics(false);
            HeapCopies.Snapshot c0 = HeapCopies.snapshot();
            singlePuts(t, 0);
            HeapCopies.Snapshot c1 = HeapCopies.snapshot();
            String after = c.getAdmin().metrics(false);

            assertEquals(2L * PUTS, c1.requestCopies() - c0.requestCopies(), "the body, then its one cell, per put");
            assertTrue(c1.requestBytes() - c0.requestBytes() > 2L * PUTS * 200, "each copy holds the 200-byte value");
            assertEquals(PUTS, c1.responseCopies() - c0.responseCopies(), "one heap response per put");

            assertEquals(PUTS, num(after, "by_method", "PUT") - num(before, "by_method", "PUT"));
            assertEquals(0, num(after, "by_method", "MULTI_PUT"));
            assertTrue(after.contains("\"supported\": true"), after);
            long handler = num(after, "by_group", "handler") - num(before, "by_group", "handler");
            assertTrue(handler > PUTS * 200L, "the handlers allocated the puts' cells and more: " + handler);
            assertTrue(num(after, "by_group", "reader") > num(before, "by_group", "reader"),
                "the readers allocated each request's heap buffer");
            assertTrue(num(after, "alloc", "total_bytes") >= num(before, "alloc", "total_bytes"));
        } finally {
            server.stop();
        }
    }

    /**
     * 2.x pool behind SimpleRpcServer: a batch above the minimal allocation is read into one pooled direct
     * buffer and decoded in place (no request copy), its response written from the pool (no response copy);
     * a single put below the minimum still lands on the heap.
     */
    @Test
    void pooledPathCopiesNoBatchAndEverySmallRequest(@TempDir Path root) throws Exception {
        RegionServer server = RegionServer.start(profile("hbase2-offheap", root).set("hbase.rpc.server.impl", "SimpleRpcServer"));
        assertTrue(server.requestBuffers() instanceof DirectBufferPool);
        try (Connection c = Connection.open(HOST, server.port())) {
            Table t = table(c);
            String before = c.getAdmin().metrics(false);
            HeapCopies.Snapshot c0 = HeapCopies.snapshot();
            batchPuts(t, 0);
            HeapCopies.Snapshot c1 = HeapCopies.snapshot();
            String afterBatches = c.getAdmin().metrics(false);
            HeapCopies.Snapshot c1b = HeapCopies.snapshot(); // after the small METRICS request, itself on the heap
            singlePuts(t, 100_000);
            HeapCopies.Snapshot c2 = HeapCopies.snapshot();

            assertEquals(0, c1.requestCopies() - c0.requestCopies(), "batches: the body stays in the pool");
            assertEquals(0, c1.responseCopies() - c0.responseCopies(), "batches: responses from the pool");
            assertEquals(BATCHES, num(afterBatches, "by_method", "MULTI_PUT") - num(before, "by_method", "MULTI_PUT"));
            assertEquals(PUTS, c2.requestCopies() - c1b.requestCopies(), "a single put is below 11093 bytes: heap");
            assertEquals(0, c2.responseCopies() - c1b.responseCopies());
        } finally {
            server.stop();
        }
    }

    /** minimal.allocate.size 0, as HBase's ByteBuffAllocator: every request, even a small put, from the pool. */
    @Test
    void minimalAllocateSizeZeroPoolsEveryRequest(@TempDir Path root) throws Exception {
        RegionServer server = RegionServer.start(profile("hbase2-offheap", root).set("hbase.rpc.server.impl", "SimpleRpcServer")
            .set("hbase.server.allocator.minimal.allocate.size", "0"));
        DirectBufferPool pool = (DirectBufferPool) server.requestBuffers();
        assertEquals(0, pool.minAllocate());
        try (Connection c = Connection.open(HOST, server.port())) {
            Table t = table(c);
            long heapBefore = pool.heapAllocationBytes();
            HeapCopies.Snapshot c0 = HeapCopies.snapshot();
            singlePuts(t, 0);
            HeapCopies.Snapshot c1 = HeapCopies.snapshot();
            assertEquals(0, c1.requestCopies() - c0.requestCopies(), "no put landed on the heap");
            assertEquals(heapBefore, pool.heapAllocationBytes(), "no heap fallback");
            assertEquals(0, pool.heapFallbacks());
        } finally {
            server.stop();
        }
        pool.checkNoLeaks();
    }

    /** The profile as shipped (NettyRpcServer): frames stay in Netty's pooled direct buffers, whatever their size. */
    @Test
    void nettyProfileCopiesNothingAndTheEndpointShowsTheGroups(@TempDir Path root) throws Exception {
        RegionServer server = RegionServer.start(profile("hbase2-offheap", root).set("hbase.regionserver.info.port", "0"));
        assertEquals("NettyRpcServer", server.rpc().name());
        try (Connection c = Connection.open(HOST, server.port())) {
            Table t = table(c);
            HeapCopies.Snapshot c0 = HeapCopies.snapshot();
            singlePuts(t, 0);
            batchPuts(t, 10_000);
            HeapCopies.Snapshot c1 = HeapCopies.snapshot();
            assertEquals(0, c1.requestCopies() - c0.requestCopies());
            assertEquals(0, c1.responseCopies() - c0.responseCopies());

            String endpoint = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://" + server.info().address() + InfoServer.METRICS_PATH)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
            assertEquals(PUTS + 1, num(endpoint, "by_method", "PUT"), "the warm-up put and the single puts");
            assertEquals(BATCHES, num(endpoint, "by_method", "MULTI_PUT"));
            assertTrue(num(endpoint, "by_group", "handler") > 0, endpoint);
            assertTrue(num(endpoint, "by_group", "reader") > 0, "the event loops allocate too: " + endpoint);
            assertTrue(endpoint.contains("\"copies\": {\"request_heap_bytes\": "), endpoint);
        } finally {
            server.stop();
        }
    }
}
