package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.heaplab.client.Connection;
import org.heaplab.client.Delete;
import org.heaplab.client.Get;
import org.heaplab.client.Put;
import org.heaplab.client.Result;
import org.heaplab.client.Table;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The read and read-modify-write RPCs end to end: a real region server and client over loopback. */
@Timeout(120)
class ReadRpcTest {
    private static final byte[] F = RegionServerTest.b("info0");
    private static final String HOST = java.net.InetAddress.getLoopbackAddress().getHostAddress();

    private static byte[] b(String s) {
        return RegionServerTest.b(s);
    }

    private static Configuration conf(Path root, boolean pooled) {
        return RegionServerTest.conf(root, 0).set("hbase.server.allocator.pool.enabled", Boolean.toString(pooled));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void getsWithQualifiersMultiGetsAndDeletes(boolean pooledResponses, @TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, pooledResponses));
        try (Connection c = Connection.open(HOST, server.port())) {
            c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE, Durability.USE_DEFAULT,
                DataBlockEncoding.DIFF, BloomType.NONE, true), new byte[][] {b("m")});
            TableDescriptor stored = server.regions().describe("T");
            assertEquals(DataBlockEncoding.DIFF, stored.encoding(), "CREATE_TABLE carries the family options");
            assertEquals(BloomType.NONE, stored.bloom());
            assertTrue(stored.inMemory());

            Table t = c.getTable("T");
            for (String row : new String[] {"apple", "kiwi", "zebra"}) {
                t.put(new Put(b(row)).addColumn(F, b("q1"), b(row + "-1")).addColumn(F, b("q2"), b(row + "-2"))
                    .addColumn(F, b("q3"), b(row + "-3")));
            }
            Result all = t.get(b("apple"));
            assertEquals(3, all.cells().size());
            Result some = t.get(new Get(b("apple")).addColumn(F, b("q1")).addColumn(F, b("q3")));
            assertEquals(2, some.cells().size());
            assertArrayEquals(b("apple-1"), some.getValue(F, b("q1")));
            assertNull(some.getValue(F, b("q2")));
            assertArrayEquals(b("apple-3"), some.getValue(F, b("q3")));

            Result[] many = t.get(List.of(new Get(b("zebra")), new Get(b("absent")), new Get(b("apple")).addColumn(F, b("q2")),
                new Get(b("kiwi"))));
            assertEquals(4, many.length);
            assertArrayEquals(b("zebra"), many[0].getRow(), "results in the order of the gets, across regions");
            assertEquals(3, many[0].cells().size());
            assertTrue(many[1].isEmpty());
            assertEquals(1, many[2].cells().size());
            assertArrayEquals(b("apple-2"), many[2].getValue(F, b("q2")));
            assertArrayEquals(b("kiwi-3"), many[3].getValue(F, b("q3")));

            t.delete(new Delete(b("apple")).addColumns(F, b("q1")));
            assertNull(t.get(b("apple")).getValue(F, b("q1")), "DeleteColumn");
            t.delete(new Delete(b("apple")).addColumn(F, b("q2")));
            assertNull(t.get(b("apple")).getValue(F, b("q2")), "Delete of the newest version");
            assertArrayEquals(b("apple-3"), t.get(b("apple")).getValue(F, b("q3")));
            t.delete(new Delete(b("kiwi")));
            assertTrue(t.get(b("kiwi")).isEmpty(), "a whole-row Delete (DeleteFamily of the table's family)");
            // a put stamped in the same millisecond as the delete would stay masked (as in HBase): stamp it later
            t.put(new Put(b("kiwi")).addColumn(F, b("q1"), System.currentTimeMillis() + 60_000, b("again")));
            assertArrayEquals(b("again"), t.get(b("kiwi")).getValue(F, b("q1")), "a later put is visible again");
            assertEquals(3, t.get(b("zebra")).cells().size(), "other rows untouched");
        } finally {
            server.stop();
        }
        assertEquals(0, server.requestBuffers().outstanding(), "every request and response buffer went back");
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "staged"})
    void concurrentIncrementsAreAtomicAndLogged(String writePath, @TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, false).set(WritePath.KEY, writePath));
        int threads = 8;
        int perThread = 150;
        try (Connection admin = Connection.open(HOST, server.port())) {
            admin.getAdmin().createTable(new TableDescriptor("C", F, Compression.NONE), new byte[0][]);
            long appendsBefore = server.regions().stats().walAppendCount();
            Set<Long> seen = ConcurrentHashMap.newKeySet();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                done.add(pool.submit(() -> {
                    try (Connection c = Connection.open(HOST, server.port())) { // one client connection per thread
                        Table t = c.getTable("C");
                        for (int j = 0; j < perThread; j++) {
                            assertTrue(seen.add(t.increment(b("counter"), F, b("n"), 1)), "each new value is returned once");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            long total = (long) threads * perThread;
            assertEquals(total, seen.size());
            Set<Long> expected = new HashSet<>();
            for (long v = 1; v <= total; v++) {
                expected.add(v);
            }
            assertEquals(expected, seen, "values 1..N*M, none lost, none repeated");
            Table t = admin.getTable("C");
            assertEquals(total, ByteBuffer.wrap(t.get(b("counter")).getValue(F, b("n"))).getLong());
            assertEquals(total + 10, t.increment(b("counter"), F, b("n"), 10));
            assertEquals(total, t.increment(b("counter"), F, b("n"), -10), "negative deltas");
            assertTrue(server.regions().stats().walAppendCount() - appendsBefore >= total + 2, "every increment went through the WAL");

            admin.getAdmin().flush("C");
            assertEquals(total + 1, t.increment(b("counter"), F, b("n"), 1), "increments a value read from a store file");
        } finally {
            server.stop();
        }
        // the counter survives a restart (flushed on stop, or replayed from the WAL)
        RegionServer again = RegionServer.start(conf(root, false).set(WritePath.KEY, writePath));
        try (Connection c = Connection.open(HOST, again.port())) {
            assertEquals((long) threads * perThread + 2, c.getTable("C").increment(b("counter"), F, b("n"), 1));
        } finally {
            again.stop();
        }
    }

    @Test
    void badInputGetsOneLineErrorsAndTheConnectionStaysUsable(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, false));
        try (Connection c = Connection.open(HOST, server.port());
             RpcConnection raw = RpcConnection.open(HOST, server.port(), 5000, 10_000)) {
            c.getAdmin().createTable(new TableDescriptor("B", F, Compression.NONE), new byte[0][]);
            Table t = c.getTable("B");
            t.put(new Put(b("text")).addColumn(F, b("q"), b("not a number")));

            assertEquals(ErrorCode.TABLE_NOT_FOUND, assertThrows(RemoteException.class,
                () -> c.getTable("Missing").get(b("r"))).code());
            assertEquals(ErrorCode.TABLE_NOT_FOUND, assertThrows(RemoteException.class,
                () -> c.getTable("Missing").get(List.of(new Get(b("r"))))).code());
            RemoteException counter = assertThrows(RemoteException.class, () -> t.increment(b("text"), F, b("q"), 1));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, counter.code());
            assertTrue(counter.getMessage().contains("not a 64-bit counter") && !counter.getMessage().contains("\n"),
                counter.getMessage());

            RemoteException caching = assertThrows(RemoteException.class, () -> raw.call(Method.SCAN,
                new ParamWriter().writeString("B").writeBytes(new byte[0]).writeBytes(new byte[0]).writeInt(0).toByteArray(),
                List.of()));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, caching.code());
            assertTrue(caching.getMessage().contains("caching"), caching.getMessage());

            KeyValue put = KeyValue.create(b("text"), F, b("q"), 1, KeyValue.Type.PUT, b("x"));
            RemoteException notDelete = assertThrows(RemoteException.class, () -> raw.call(Method.DELETE,
                new ParamWriter().writeString("B").writeInt(0).toByteArray(), List.of(put)));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, notDelete.code());
            assertTrue(notDelete.getMessage().contains("delete markers"), notDelete.getMessage());

            RemoteException encoding = assertThrows(RemoteException.class, () -> raw.call(Method.CREATE_TABLE,
                new ParamWriter().writeString("E").writeBytes(F).writeString("NONE").writeInt(0).writeString("USE_DEFAULT")
                    .writeString("PREFIX_TREE").writeString("ROW").writeBoolean(false).toByteArray(), List.of()));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, encoding.code());
            assertTrue(encoding.getMessage().contains("supported: NONE, DIFF, ROW_INDEX_V1"), encoding.getMessage());
            assertFalse(c.getAdmin().tableExists("E"));

            assertEquals(ErrorCode.MALFORMED_REQUEST, assertThrows(RemoteException.class,
                () -> raw.call(Method.GET, new ParamWriter().writeString("B").writeInt(99).toByteArray(), List.of())).code());
            assertEquals(ErrorCode.MALFORMED_REQUEST, assertThrows(RemoteException.class,
                () -> raw.call(Method.MULTI_GET, new ParamWriter().writeString("B").writeInt(-1).toByteArray(), List.of())).code());
            assertEquals(ErrorCode.MALFORMED_REQUEST, assertThrows(RemoteException.class,
                () -> raw.call(Method.INCREMENT, new ParamWriter().writeString("B").writeBytes(b("r")).toByteArray(),
                    List.of())).code());

            assertArrayEquals(b("not a number"), t.get(b("text")).getValue(F, b("q")), "the connection still works");
        } finally {
            server.stop();
        }
    }
}
