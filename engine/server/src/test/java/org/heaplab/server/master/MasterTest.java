package org.heaplab.server.master;

import static org.heaplab.server.master.MiniCluster.HOST;
import static org.heaplab.server.master.MiniCluster.await;
import static org.heaplab.server.master.MiniCluster.shows;
import static org.heaplab.server.master.MiniCluster.statusShows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionListCodec;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.server.RegionServer;
import org.heaplab.server.TableSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master and three region servers in this JVM on loopback: registration, round-robin assignment of a
 * pre-split table over all three, routing (NOT_SERVING_REGION at the wrong server, data refused at the
 * master), forwarded DDL, a stopped server marked down and back, a master restart that keeps tables and
 * assignments, and the rollback of a failed create.
 */
@Timeout(60)
class MasterTest {
    static final byte[][] SPLITS = {b("r1"), b("r2"), b("r3"), b("r4"), b("r5")};

    @TempDir
    Path root;

    Master master;
    String masterAddress;
    final RegionServer[] servers = new RegionServer[3];
    final String[] names = new String[3];
    final int[] ports = new int[3];

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    String rpcImpl = org.heaplab.rpc.server.RpcServers.defaultImplementation();

    void startCluster(long timeoutMs) throws Exception {
        int masterPort = MiniCluster.freePort();
        master = Master.start(MiniCluster.masterConf(root.resolve("master"), masterPort, timeoutMs)
            .set(org.heaplab.rpc.server.RpcServers.IMPL_KEY, rpcImpl));
        masterAddress = master.address();
        for (int i = 0; i < 3; i++) {
            ports[i] = MiniCluster.freePort();
            startServer(i);
            names[i] = HOST + ":" + ports[i];
        }
        await("three servers online", masterAddress, statusShows(masterAddress,
            s -> shows(s, names[0], true) && shows(s, names[1], true) && shows(s, names[2], true)));
    }

    void startServer(int i) throws IOException {
        servers[i] = RegionServer.start(MiniCluster.serverConf(root.resolve("rs" + i), ports[i], masterAddress)
            .set(org.heaplab.rpc.server.RpcServers.IMPL_KEY, rpcImpl));
    }

    @AfterEach
    void stopAll() {
        for (RegionServer s : servers) {
            if (s != null) {
                s.stop();
            }
        }
        if (master != null) {
            master.stop();
        }
    }

    void createTable(RawClusterClient c, String table) throws IOException {
        c.master(Method.CREATE_TABLE, new TableSpec(new TableDescriptor(table, RawClusterClient.F, Compression.NONE),
            SPLITS).write(new ParamWriter()).toByteArray());
    }

    static String row(int i) {
        return "r" + (i % 6) + String.format("-%04d", i); // spread over all six regions ("r0-..." is the first)
    }

    static java.util.List<String> implementations() {
        return org.heaplab.rpc.server.RpcServers.implementations();
    }

    /** On every RPC server implementation: the master's and the region servers' (the other tests: the default). */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("implementations")
    void aPreSplitTableSpreadsOverAllServersAndServesReadsAndWrites(String impl) throws Exception {
        rpcImpl = impl;
        startCluster(MiniCluster.TIMEOUT_MS);
        assertEquals(impl, master.rpc().name());
        assertEquals(impl, servers[0].rpc().name());
        try (RawClusterClient c = new RawClusterClient(masterAddress, "T")) {
            createTable(c, "T");
            List<RegionLocation> locations = c.locate();
            assertEquals(6, locations.size());
            Map<String, List<String>> byServer = new TreeMap<>();
            locations.forEach(l -> byServer.computeIfAbsent(l.server(), k -> new ArrayList<>()).add(l.encodedName()));
            assertEquals(Set.of(names), byServer.keySet(), "every server holds regions");
            for (int i = 0; i < 3; i++) {
                Set<String> held = servers[i].regions().regions("T").stream().map(RegionInfo::encodedName)
                    .collect(Collectors.toSet());
                assertEquals(Set.copyOf(byServer.get(names[i])), held, "server " + i + " holds what LOCATE says");
                assertEquals(2, held.size());
            }
            assertTrue(locations.stream().allMatch(RegionLocation::serverOnline));

            for (int i = 0; i < 300; i++) {
                c.put(row(i), "v" + i);
            }
            for (int i = 0; i < 300; i++) {
                assertEquals("v" + i, c.get(row(i)));
            }

            // the wrong server refuses (nothing applied); the master refuses data methods
            RegionLocation first = locations.get(0);
            String other = locations.stream().map(RegionLocation::server).filter(s -> !s.equals(first.server())).findFirst()
                .orElseThrow();
            RemoteException wrong = assertThrows(RemoteException.class, () -> c.connection(other).call(Method.GET,
                new ParamWriter().writeString("T").writeBytes(b("a")).toByteArray(), List.of()));
            assertEquals(ErrorCode.NOT_SERVING_REGION, wrong.code());
            RemoteException atMaster = assertThrows(RemoteException.class, () -> c.master(Method.GET,
                new ParamWriter().writeString("T").writeBytes(b("a")).toByteArray()));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, atMaster.code());
            assertTrue(atMaster.getMessage().contains("ask LOCATE"), atMaster.getMessage());
            // in cluster mode a region server does not create tables itself
            RemoteException direct = assertThrows(RemoteException.class, () -> c.connection(names[0]).call(
                Method.CREATE_TABLE, new TableSpec(new TableDescriptor("X", RawClusterClient.F, Compression.NONE),
                    new byte[0][]).write(new ParamWriter()).toByteArray(), List.of()));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, direct.code());

            // forwarded table methods
            c.master(Method.FLUSH, new ParamWriter().writeString("T").toByteArray());
            List<RegionInfo> regions = RegionListCodec.read(c.master(Method.LIST_REGIONS,
                new ParamWriter().writeString("T").toByteArray()).paramReader());
            assertEquals(6, regions.size());
            assertTrue(regions.stream().allMatch(r -> r.storeFiles().size() == 1 && r.memstoreBytes() == 0),
                "the flush reached every region on every server");
            c.master(Method.MAJOR_COMPACT, new ParamWriter().writeString("T").toByteArray());
            assertTrue(c.master(Method.TABLE_EXISTS, new ParamWriter().writeString("T").toByteArray()).paramReader()
                .readBoolean());
            RemoteException exists = assertThrows(RemoteException.class, () -> createTable(c, "T"));
            assertEquals(ErrorCode.TABLE_EXISTS, exists.code());
            String status = MiniCluster.status(masterAddress);
            assertTrue(status.endsWith("\"tables\": 1, \"regions\": 6}"), status);
            assertTrue(status.contains("\"info\": \"" + servers[0].info().address() + "\""), "REGISTER carried the "
                + "server's metrics endpoint: " + status);
            String metrics = new String(java.net.URI.create("http://" + master.info().address() + "/metrics").toURL()
                .openStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(metrics.contains("\"role\": \"master\"") && metrics.contains(
                "\"cluster\": {\"servers_online\": 3, \"servers_down\": 0, \"tables\": 1, \"regions\": 6}"), metrics);

            c.master(Method.DROP_TABLE, new ParamWriter().writeString("T").toByteArray());
            for (RegionServer s : servers) {
                assertFalse(s.regions().tableExists("T"));
            }
            RemoteException gone = assertThrows(RemoteException.class, c::locate);
            assertEquals(ErrorCode.TABLE_NOT_FOUND, gone.code());
        }
    }

    @Test
    void aStoppedServerIsMarkedDownAndServesItsRegionsAgainAfterARestart() throws Exception {
        startCluster(MiniCluster.TIMEOUT_MS);
        try (RawClusterClient c = new RawClusterClient(masterAddress, "T")) {
            createTable(c, "T");
            for (int i = 0; i < 120; i++) {
                c.put(row(i), "v" + i);
            }
            long startCode = MiniCluster.startCode(MiniCluster.status(masterAddress), names[1]);
            servers[1].stop();
            servers[1] = null;
            await("server 1 marked down", masterAddress, statusShows(masterAddress, s -> shows(s, names[1], false)));
            List<RegionLocation> down = c.locate();
            assertTrue(down.stream().filter(l -> l.server().equals(names[1])).noneMatch(RegionLocation::serverOnline));
            assertTrue(down.stream().filter(l -> !l.server().equals(names[1])).allMatch(RegionLocation::serverOnline));
            RemoteException flush = assertThrows(RemoteException.class, () -> c.master(Method.FLUSH,
                new ParamWriter().writeString("T").toByteArray()));
            assertTrue(flush.getMessage().contains(names[1]), flush.getMessage());

            startServer(1);
            await("server 1 online again", masterAddress, statusShows(masterAddress, s -> shows(s, names[1], true)));
            assertNotEquals(startCode, MiniCluster.startCode(MiniCluster.status(masterAddress), names[1]),
                "a restart registers with a new start code");
            assertTrue(c.locate().stream().allMatch(RegionLocation::serverOnline));
            // the master's cached connection to the old process is stale: the forwarded flush reconnects
            c.master(Method.FLUSH, new ParamWriter().writeString("T").toByteArray());
            for (int i = 0; i < 120; i++) {
                assertEquals("v" + i, c.get(row(i)), "row " + row(i));
            }
        }
    }

    @Test
    void aMasterRestartKeepsTablesAndAssignments() throws Exception {
        startCluster(MiniCluster.TIMEOUT_MS);
        List<RegionLocation> before;
        try (RawClusterClient c = new RawClusterClient(masterAddress, "T")) {
            createTable(c, "T");
            for (int i = 0; i < 60; i++) {
                c.put(row(i), "v" + i);
            }
            before = c.locate();
        }
        int port = master.port();
        master.stop();
        master = Master.start(MiniCluster.masterConf(root.resolve("master"), port, MiniCluster.TIMEOUT_MS));
        await("the servers registered with the new master", masterAddress, statusShows(masterAddress,
            s -> shows(s, names[0], true) && shows(s, names[1], true) && shows(s, names[2], true)));
        try (RawClusterClient c = new RawClusterClient(masterAddress, "T")) {
            List<RegionLocation> after = c.locate();
            assertEquals(describe(before), describe(after), "same regions on the same servers");
            for (int i = 0; i < 60; i++) {
                assertEquals("v" + i, c.get(row(i)));
            }
        }
    }

    @Test
    void aFailedOpenRollsTheCreateBack() throws Exception {
        startCluster(60_000); // the master does not notice the stopped server before the create
        servers[2].stop();
        servers[2] = null;
        try (RawClusterClient c = new RawClusterClient(masterAddress, "T")) {
            IOException e = assertThrows(IOException.class, () -> createTable(c, "T"));
            assertTrue(e.getMessage().contains(names[2]) && e.getMessage().contains("rolled back"), e.getMessage());
            assertFalse(servers[0].regions().tableExists("T"), "rolled back on server 0");
            assertFalse(servers[1].regions().tableExists("T"), "rolled back on server 1");
            assertFalse(c.master(Method.TABLE_EXISTS, new ParamWriter().writeString("T").toByteArray()).paramReader()
                .readBoolean());
        }
    }

    private static List<String> describe(List<RegionLocation> locations) {
        return locations.stream().map(l -> l.encodedName() + "@" + l.server() + "[" + new String(l.startKey(),
            StandardCharsets.UTF_8) + "," + new String(l.endKey(), StandardCharsets.UTF_8) + ")").toList();
    }
}
