package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.client.Admin;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Result;
import org.heaplab.client.Table;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.ServerStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(120)
class RegionServerTest {
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    static Configuration conf(Path root, int port) {
        return new Configuration().set("hbase.rootdir", root.toString()).set(RegionServer.HOSTNAME_KEY, HOST)
            .set(RegionServer.PORT_KEY, Integer.toString(port)).set("hbase.regionserver.handler.count", "8");
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void clientDrivesEveryMethodAgainstAnInJvmServer(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, 0));
        try (Connection c = Connection.open(HOST, server.port())) {
            Admin admin = c.getAdmin();
            admin.createTable(new TableDescriptor("T1", F, Compression.SNAPPY), new byte[][] {b("m"), b("t")});
            assertTrue(admin.tableExists("T1"));
            assertFalse(admin.tableExists("nope"));
            assertEquals(List.of("T1"), admin.tables());
            RemoteException exists = assertThrows(RemoteException.class,
                () -> admin.createTable(new TableDescriptor("T1", F, Compression.NONE), new byte[0][]));
            assertEquals(ErrorCode.TABLE_EXISTS, exists.code());

            Table t = c.getTable("T1");
            t.put(new Put(b("apple")).addColumn(F, Q, b("red")));
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                batch.add(new Put(b(String.format("%c-%03d", (char) ('a' + i % 26), i))).addColumn(F, Q, b("v" + i)));
            }
            t.put(batch);
            assertArrayEquals(b("red"), t.get(b("apple")).getValue(F, Q));
            assertArrayEquals(b("v299"), t.get(b(String.format("%c-%03d", (char) ('a' + 299 % 26), 299))).getValue(F, Q));
            assertTrue(t.get(b("missing")).isEmpty());

            List<RegionInfo> regions = admin.regions("T1");
            assertEquals(3, regions.size());
            assertArrayEquals(new byte[0], regions.get(0).startKey());
            assertArrayEquals(b("m"), regions.get(0).endKey());
            assertTrue(regions.stream().mapToLong(RegionInfo::memstoreBytes).sum() > 0);

            admin.flush("T1");
            t.put(new Put(b("apple")).addColumn(F, Q, b("green")));
            admin.flush("T1");
            long filesBefore = admin.regions("T1").stream().mapToLong(r -> r.storeFiles().size()).sum();
            assertTrue(filesBefore >= 4, "two flushes leave store files: " + filesBefore);
            admin.majorCompact("T1");
            List<RegionInfo> compacted = admin.regions("T1");
            for (RegionInfo r : compacted) {
                assertTrue(r.storeFiles().size() <= 1, "one file per region after a major compaction: " + r);
            }
            assertEquals(301, compacted.stream().flatMap(r -> r.storeFiles().stream()).mapToLong(f -> f.cellCount()).sum());
            Result r = t.get(b("apple"));
            assertArrayEquals(b("green"), r.getValue(F, Q));

            ServerStatus s = admin.status();
            assertEquals(1, s.tables());
            assertEquals(3, s.regions());
            assertEquals(8, s.handlers());
            assertEquals(org.heaplab.rpc.server.RpcServers.defaultImplementation(), s.rpcServer());

            RemoteException missing = assertThrows(RemoteException.class,
                () -> c.getTable("nope").put(new Put(b("x")).addColumn(F, Q, b("y"))));
            assertEquals(ErrorCode.TABLE_NOT_FOUND, missing.code());
            admin.dropTable("T1");
            assertFalse(admin.tableExists("T1"));
        } finally {
            server.stop();
        }
    }

    @Test
    void writesSurviveAGracefulRestart(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, 0));
        try (Connection c = Connection.open(HOST, server.port())) {
            c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), new byte[0][]);
            c.getTable("T").put(new Put(b("k")).addColumn(F, Q, b("v")));
        } finally {
            server.stop();
        }
        RegionServer again = RegionServer.start(conf(root, 0));
        try (Connection c = Connection.open(HOST, again.port())) {
            assertArrayEquals(b("v"), c.getTable("T").get(b("k")).getValue(F, Q));
        } finally {
            again.stop();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "staged"})
    void aPutToAMissingFamilyAnswersNoSuchColumnFamilyAndAppliesNothing(String writePath, @TempDir Path root)
        throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(conf(root, 0).set(WritePath.KEY, writePath));
        try (Connection c = Connection.open(HOST, server.port());
             RpcConnection raw = RpcConnection.open(HOST, server.port(), 5000, 10_000)) {
            c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), new byte[0][]);
            List<KeyValue> cells = List.of(KeyValue.create(b("a"), F, Q, 1, KeyValue.Type.PUT, b("good")),
                KeyValue.create(b("b"), b("nope"), Q, 1, KeyValue.Type.PUT, b("bad")));
            RemoteException e = assertThrows(RemoteException.class,
                () -> raw.call(Method.PUT, new ParamWriter().writeString("T").toByteArray(), cells));
            assertEquals(ErrorCode.NO_SUCH_COLUMN_FAMILY, e.code());
            assertEquals("org.heaplab.core.region.NoSuchColumnFamilyException", e.errorClass());
            assertEquals("column family 'nope' does not exist in table 'T'", e.getMessage());
            assertTrue(c.getTable("T").get(b("a")).isEmpty(), "nothing of the request was applied");
            raw.call(Method.STATUS, new byte[0], List.of()); // the connection stays open
        } finally {
            server.stop();
        }
    }

    @Test
    void aTakenPortIsOneClearErrorNamingThePortAndTheKey(@TempDir Path root) throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            RegionServer.PortInUseException e = assertThrows(RegionServer.PortInUseException.class,
                () -> RegionServer.start(conf(root.resolve("data"), port)));
            assertTrue(e.getMessage().startsWith("port " + port + " on " + HOST + " is already in use"), e.getMessage());
            assertTrue(e.getMessage().contains("hbase.regionserver.port"), e.getMessage());
            assertFalse(java.nio.file.Files.exists(root.resolve("data")), "nothing opened before the port is bound");
        }
    }
}
