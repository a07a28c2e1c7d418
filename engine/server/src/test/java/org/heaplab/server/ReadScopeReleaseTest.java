package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.heaplab.client.Connection;
import org.heaplab.client.Get;
import org.heaplab.client.Put;
import org.heaplab.client.Result;
import org.heaplab.client.ResultScanner;
import org.heaplab.client.Scan;
import org.heaplab.client.Table;
import org.heaplab.core.cache.CacheLeakDetector;
import org.heaplab.core.cache.CombinedBlockCache;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.protocol.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 2.x read path through a real server and client over sockets: off-heap BucketCache, zero-copy
 * read path, pooled direct responses. Every read RPC (GET, MULTI_GET, SCAN batches, INCREMENT, a DELETE
 * of the newest version, and reads that fail) gives back every cache reference it took, which the
 * cache's leak detector checks after the calls, and the answers are exact.
 */
@Timeout(120)
class ReadScopeReleaseTest {
    private static final byte[] F = RegionServerTest.b("info0");
    private static final byte[] Q = RegionServerTest.b("0");
    private static final String HOST = java.net.InetAddress.getLoopbackAddress().getHostAddress();
    private static final int ROWS = 3000;

    static Configuration offheapReads(Path root) {
        return RegionServerTest.conf(root, 0).set("hbase.server.allocator.pool.enabled", "true")
            .set("hbase.bucketcache.ioengine", "offheap").set("hbase.bucketcache.size", "32")
            .set("heaplab.regionserver.read.path", "zero-copy");
    }

    private static byte[] row(int i) {
        return RegionServerTest.b(String.format("row-%06d", i));
    }

    private static byte[] value(int i) {
        return RegionServerTest.b(("v" + i + "-").repeat(40));
    }

    @Test
    void everyReadRpcReleasesItsCacheReferences(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(offheapReads(root));
        try (Connection c = Connection.open(HOST, server.port())) {
            assertTrue(server.regions().stats().blockCache() instanceof CombinedBlockCache, "the profile's cache: LRU L1 + bucket L2");
            c.getAdmin().createTable(new TableDescriptor("R", F, Compression.NONE), new byte[][] {row(ROWS / 2)});
            Table t = c.getTable("R");
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                batch.add(new Put(row(i)).addColumn(F, Q, value(i)));
                if (batch.size() == 500) {
                    t.put(batch);
                    batch.clear();
                }
            }
            t.put(new Put(row(7)).addColumn(F, RegionServerTest.b("n"), java.nio.ByteBuffer.allocate(8).putLong(41).array()));
            c.getAdmin().flush("R"); // every read below comes from store files through the cache

            Random random = new Random(42);
            for (int round = 0; round < 3; round++) { // round 0 fills the cache; later rounds hit the bucket cache
                for (int k = 0; k < 200; k++) {
                    int i = random.nextInt(ROWS);
                    assertArrayEquals(value(i), t.get(new Get(row(i)).addColumn(F, Q)).getValue(F, Q), "row " + i);
                }
                List<Get> gets = new ArrayList<>();
                for (int k = 0; k < 40; k++) {
                    gets.add(new Get(row(k * 70)));
                }
                Result[] many = t.get(gets);
                for (int k = 0; k < 40; k++) {
                    assertArrayEquals(value(k * 70), many[k].getValue(F, Q));
                }
                int seen = 0;
                try (ResultScanner s = t.getScanner(new Scan().setCaching(30))) {
                    for (Result r : s) {
                        assertArrayEquals(value(seen), r.getValue(F, Q), "scan row " + seen);
                        seen++;
                    }
                }
                assertEquals(ROWS, seen, "the scan crosses the region boundary");
                try (ResultScanner s = t.getScanner(new Scan().withStartRow(row(100)).withStopRow(row(200)).setCaching(7))) {
                    int n = 0;
                    for (Result r : s) {
                        n++;
                    }
                    assertEquals(100, n);
                }
                assertEquals(42 + round, t.increment(row(7), F, RegionServerTest.b("n"), 1));
                RemoteException notCounter = assertThrows(RemoteException.class, () -> t.increment(row(8), F, Q, 1));
                assertEquals(ErrorCode.ILLEGAL_ARGUMENT, notCounter.code(), "fails after reading the block");
            }
            t.delete(new org.heaplab.client.Delete(row(9)).addColumn(F, Q));
            assertTrue(t.get(row(9)).isEmpty());

            long taken = CacheLeakDetector.of(server.regions().stats().blockCache()).stream().mapToLong(CacheLeakDetector::taken).sum();
            assertTrue(taken > 0, "reads were served from the off-heap cache");
            // the last scopes close right after their responses are written, possibly after the client read them
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (CacheLeakDetector.outstanding(server.regions().stats().blockCache()) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            CacheLeakDetector.assertNoLeaks(server.regions().stats().blockCache());
        } finally {
            server.stop();
        }
        assertEquals(0, server.requestBuffers().outstanding(), "request and response buffers all went back");
    }
}
