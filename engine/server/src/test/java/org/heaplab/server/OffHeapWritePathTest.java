package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.client.Admin;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An in-JVM region server with the distribution's hbase2-offheap profile: the off-heap write path end to end. */
@Timeout(120)
class OffHeapWritePathTest {
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    /** The profile as shipped (the test runs in engine/server). */
    private static final Path PROFILE = Path.of("..", "dist", "src", "conf", "profiles", "hbase2-offheap.xml");

    static Configuration offHeapConf(Path root) {
        assertTrue(Files.isRegularFile(PROFILE), "profile at " + PROFILE.toAbsolutePath());
        return new Configuration().addResource(PROFILE).set("hbase.rootdir", root.toString())
            .set(RegionServer.HOSTNAME_KEY, HOST).set(RegionServer.PORT_KEY, "0")
            .set("hbase.regionserver.handler.count", "8")
            .set("hbase.hregion.memstore.mslab.chunksize", "65536")
            .set("hbase.hregion.memstore.mslab.max.allocation", "16384");
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<Put> batch(String prefix, int n, char fill) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            puts.add(new Put(b(String.format("%s-%04d", prefix, i))).addColumn(F, Q, b(String.valueOf(fill).repeat(100) + i)));
        }
        return puts;
    }

    /** The profile as shipped runs NettyRpcServer, whose frames stay in Netty's pooled ByteBufs. */
    @Test
    void theProfileRunsNettyAndReleasesEveryRequestBuffer(@TempDir Path root) throws Exception {
        RegionServer server = RegionServer.start(offHeapConf(root));
        RequestBufferAllocator buffers = server.requestBuffers();
        assertEquals("NettyRpcServer", server.rpc().name());
        try (Connection c = Connection.open(HOST, server.port())) {
            c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), new byte[][] {b("m")});
            Table t = c.getTable("T");
            t.put(new Put(b("single")).addColumn(F, Q, b("one")));
            t.put(batch("a", 120, 'a'));
            t.put(batch("n", 120, 'n'));
            assertArrayEquals(b("one"), t.get(b("single")).getValue(F, Q));
            assertArrayEquals(b("a".repeat(100) + 7), t.get(b("a-0007")).getValue(F, Q));
            assertArrayEquals(b("n".repeat(100) + 119), t.get(b("n-0119")).getValue(F, Q));
        } finally {
            server.stop();
        }
        assertEquals(0, buffers.outstanding(), "every request buffer went back after its response");
    }

    /**
     * HBase 2's ByteBuffAllocator pool (DirectBufferPool) behind SimpleRpcServer: the rest of the
     * profile as shipped, with the RPC server pinned (NettyRpcServer reads into its own pooled ByteBufs).
     */
    @Test
    void putGetBatchFlushCompactWithTheOffHeapProfile(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(offHeapConf(root).set("hbase.rpc.server.impl", "SimpleRpcServer"));
        RequestBufferAllocator buffers = server.requestBuffers();
        assertTrue(buffers instanceof DirectBufferPool, "the profile selects the pool: " + buffers.describe());
        try (Connection c = Connection.open(HOST, server.port())) {
            Admin admin = c.getAdmin();
            admin.createTable(new TableDescriptor("T", F, Compression.SNAPPY), new byte[][] {b("m")});
            Table t = c.getTable("T");
            t.put(new Put(b("single")).addColumn(F, Q, b("one")));
            long heapAfterSingle = buffers.heapAllocationBytes();
            assertTrue(heapAfterSingle > 0, "a small request is below the minimal allocation: heap");

            // ~17 KB batches: one pooled buffer each, the same buffer reused by the next batch.
            t.put(batch("a", 120, 'a'));
            long pooled = buffers.poolAllocationBytes();
            assertTrue(pooled > 0, "a batch above the minimal allocation uses a pooled buffer");
            t.put(batch("n", 120, 'n')); // overwrites the request buffer the 'a' cells were decoded over
            // one buffer for the request and one for its response (the 2.x response path takes whole pooled
            // buffers from the same pool); the request buffer goes back before the answer is written, so the
            // next batch reuses it; the response buffer goes back just after its write, which may be after the
            // client sent the next batch (then its response takes a third buffer)
            int created = ((DirectBufferPool) buffers).createdBuffers();
            assertTrue(created >= 2 && created <= 3, "sequential batches reuse the buffers: " + created);
            // ~140 KB: pooled buffers plus a heap tail
            t.put(batch("z", 1000, 'z'));
            assertTrue(buffers.poolAllocationBytes() > pooled + 100_000);

            for (int i = 0; i < 120; i += 7) {
                assertArrayEquals(b("a".repeat(100) + i), t.get(b(String.format("a-%04d", i))).getValue(F, Q),
                    "a cell of an earlier request is intact after its buffer was reused");
            }
            assertArrayEquals(b("one"), t.get(b("single")).getValue(F, Q));
            assertArrayEquals(b("z".repeat(100) + 999), t.get(b("z-0999")).getValue(F, Q));

            admin.flush("T");
            t.put(batch("a", 120, 'b')); // new versions into MSLAB chunks reused from the flushed snapshot
            admin.flush("T");
            admin.majorCompact("T");
            List<RegionInfo> regions = admin.regions("T");
            assertEquals(1 + 120 + 120 + 1000, regions.stream().flatMap(r -> r.storeFiles().stream())
                .mapToLong(f -> f.cellCount()).sum());
            assertArrayEquals(b("b".repeat(100) + 5), t.get(b("a-0005")).getValue(F, Q));
            assertArrayEquals(b("n".repeat(100) + 5), t.get(b("n-0005")).getValue(F, Q));
            assertArrayEquals(b("one"), t.get(b("single")).getValue(F, Q));
        } finally {
            server.stop();
        }
        assertEquals(0, buffers.outstanding(), "every request buffer went back after its response");
        ((DirectBufferPool) buffers).checkNoLeaks();
    }
}
