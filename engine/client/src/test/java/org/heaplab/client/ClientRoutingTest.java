package org.heaplab.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Method;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client against fake region servers and a fake master on loopback: batches split per server,
 * results in request order, scans region by region, relocation on NOT_SERVING_REGION (LOCATE counted),
 * backoff on SERVER_BUSY, INCREMENT never retried once it may have run, NO_SUCH_COLUMN_FAMILY never retried,
 * one-line errors after the retries.
 */
@Timeout(30)
class ClientRoutingTest {
    private static final String[] SPLITS = {"d", "h", "m", "r"};
    private FakeCluster cluster;
    private Connection conn;

    @BeforeEach
    void start() throws IOException {
        cluster = new FakeCluster(3);
        cluster.table("T", SPLITS); // regions on servers 0, 1, 2, 0, 1
        conn = Connection.open(cluster.clientConf());
    }

    @AfterEach
    void stop() {
        if (conn != null) {
            conn.close();
        }
        cluster.close();
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private static List<String> rows(int n, long seed) {
        List<String> out = new ArrayList<>();
        Random r = new Random(seed);
        for (int i = 0; i < n; i++) {
            out.add((char) ('a' + r.nextInt(26)) + "-" + i);
        }
        return out;
    }

    @Test
    void batchesGoOnePartPerServerAndReadBackInRequestOrder() throws IOException {
        Table t = conn.getTable("T");
        List<String> rows = rows(200, 1);
        List<Put> puts = new ArrayList<>();
        for (String r : rows) {
            puts.add(new Put(b(r)).addColumn(FakeCluster.F, FakeCluster.Q, b("v" + r)));
        }
        t.put(puts);
        int total = 0;
        for (FakeCluster.Server s : cluster.servers) {
            assertEquals(1, s.calls(Method.PUT), "one PUT call per server for the whole batch");
            total += s.rows.size();
        }
        assertEquals(rows.size(), total, "every row reached the server holding it (others answer NOT_SERVING_REGION)");
        assertEquals(1, conn.locateCalls(), "one LOCATE for the table, then the cache");

        List<String> shuffled = new ArrayList<>(rows);
        shuffled.add("zz-absent");
        Collections.shuffle(shuffled, new Random(2));
        List<Get> gets = new ArrayList<>();
        shuffled.forEach(r -> gets.add(new Get(b(r))));
        Result[] got = t.get(gets);
        for (int i = 0; i < shuffled.size(); i++) {
            if (shuffled.get(i).equals("zz-absent")) {
                assertTrue(got[i].isEmpty());
            } else {
                assertArrayEquals(b("v" + shuffled.get(i)), got[i].getValue(FakeCluster.F, FakeCluster.Q), shuffled.get(i));
            }
        }
        for (FakeCluster.Server s : cluster.servers) {
            assertEquals(1, s.calls(Method.MULTI_GET));
        }
        assertArrayEquals(b("v" + rows.get(7)), t.get(b(rows.get(7))).getValue(FakeCluster.F, FakeCluster.Q));
    }

    @Test
    void scansGoRegionByRegionInRowOrder() throws IOException {
        Table t = conn.getTable("T");
        List<String> rows = rows(100, 3);
        List<Put> puts = new ArrayList<>();
        rows.forEach(r -> puts.add(new Put(b(r)).addColumn(FakeCluster.F, FakeCluster.Q, b(r))));
        t.put(puts);
        List<String> sorted = new ArrayList<>(rows);
        Collections.sort(sorted);
        List<String> seen = new ArrayList<>();
        try (ResultScanner s = t.getScanner(new Scan().setCaching(7))) {
            for (Result r : s) {
                seen.add(new String(r.getRow()));
            }
        }
        assertEquals(sorted, seen, "every row once, in order, across the five regions on three servers");
        List<String> part = new ArrayList<>();
        try (ResultScanner s = t.getScanner(new Scan().withStartRow(b("c")).withStopRow(b("n")).setCaching(5))) {
            for (Result r : s) {
                part.add(new String(r.getRow()));
            }
        }
        assertEquals(sorted.stream().filter(r -> r.compareTo("c") >= 0 && r.compareTo("n") < 0).toList(), part);
    }

    @Test
    void notServingRegionRelocatesAndRetries() throws IOException {
        Table t = conn.getTable("T");
        t.put(new Put(b("a1")).addColumn(FakeCluster.F, FakeCluster.Q, b("one")));
        assertEquals(1, cluster.master.locates.get());
        cluster.move("T", 0, 2, true); // region [, d) moves from server 0 to server 2
        t.put(new Put(b("a2")).addColumn(FakeCluster.F, FakeCluster.Q, b("two")));
        assertEquals(2, cluster.master.locates.get(), "NOT_SERVING_REGION dropped the cached locations: one new LOCATE");
        assertEquals(2, conn.locateCalls());
        assertEquals(2, cluster.servers.get(0).calls(Method.PUT), "the stale server was asked once, then not again");
        assertArrayEquals(b("two"), cluster.servers.get(2).rows.get(b("a2")));
        assertNull(cluster.servers.get(0).rows.get(b("a2")), "nothing applied on the server that refused");
    }

    @Test
    void serverBusyBacksOffAndRetries() throws IOException {
        cluster.servers.get(1).failNext(Method.PUT, 2, new FakeCluster.CallQueueTooBigException());
        conn.getTable("T").put(new Put(b("e")).addColumn(FakeCluster.F, FakeCluster.Q, b("x")));
        assertEquals(3, cluster.servers.get(1).calls(Method.PUT), "two SERVER_BUSY answers, then applied");
        assertEquals(1, conn.locateCalls(), "busy is not a reason to relocate");
    }

    @Test
    void incrementIsNotRetriedOnceItMayHaveRun() throws IOException {
        Table t = conn.getTable("T");
        FakeCluster.Server s0 = cluster.servers.get(0);
        s0.failNext(Method.INCREMENT, 1, new IOException("disk trouble after the apply"));
        RetriesExhaustedException e = assertThrows(RetriesExhaustedException.class,
            () -> t.increment(b("c"), FakeCluster.F, FakeCluster.Q, 5));
        assertEquals(1, s0.calls(Method.INCREMENT), "IO_ERROR: the increment may have been applied, so it is not resent");
        assertTrue(e.getMessage().contains("not retried") && e.getMessage().contains("table T")
            && e.getMessage().contains(s0.address()) && !e.getMessage().contains("\n"), e.getMessage());

        s0.failNext(Method.INCREMENT, 2, new FakeCluster.CallQueueTooBigException());
        assertEquals(5, t.increment(b("c"), FakeCluster.F, FakeCluster.Q, 5), "SERVER_BUSY: the call did not run, so it is resent");
        assertEquals(4, s0.calls(Method.INCREMENT));
        cluster.move("T", 0, 1, true);
        assertEquals(5, t.increment(b("c2"), FakeCluster.F, FakeCluster.Q, 5), "NOT_SERVING_REGION: nothing ran, resent");
    }

    @Test
    void aServerThatDiesWithTheCallGetsPutsAgainButNotIncrements() throws IOException {
        try (CrashingServer crashing = new CrashingServer()) {
            cluster.assign("T", 0, crashing.address());
            Table t = conn.getTable("T");
            RetriesExhaustedException put = assertThrows(RetriesExhaustedException.class,
                () -> t.put(new Put(b("a")).addColumn(FakeCluster.F, FakeCluster.Q, b("x"))));
            assertEquals(6, crashing.requests.get(), "a put is idempotent: sent again on every attempt (5 retries)");
            assertTrue(put.getMessage().contains("last server " + crashing.address()), put.getMessage());

            RetriesExhaustedException inc = assertThrows(RetriesExhaustedException.class,
                () -> t.increment(b("a"), FakeCluster.F, FakeCluster.Q, 1));
            assertEquals(7, crashing.requests.get(), "the increment reached the server once and was not sent again");
            assertTrue(inc.getMessage().startsWith("INCREMENT on table T at " + crashing.address()
                + " failed and is not retried (it may have been applied): "), inc.getMessage());
        }
    }

    @Test
    void anIncrementWhoseLocateFailedIsRetried() throws IOException {
        cluster.master.failLocates.set(2);
        assertEquals(3, conn.getTable("T").increment(b("c"), FakeCluster.F, FakeCluster.Q, 3),
            "the increment was never sent while locating failed, so retrying is safe");
        assertEquals(1, cluster.servers.get(0).calls(Method.INCREMENT));
        assertEquals(3, cluster.master.locates.get());
    }

    @Test
    void afterTheRetriesOneLineNamesServerTableAndCause() throws IOException {
        FakeCluster.Server s1 = cluster.servers.get(1);
        Table t = conn.getTable("T");
        t.put(new Put(b("a")).addColumn(FakeCluster.F, FakeCluster.Q, b("x")));
        s1.stop();
        RetriesExhaustedException e = assertThrows(RetriesExhaustedException.class,
            () -> t.put(new Put(b("f")).addColumn(FakeCluster.F, FakeCluster.Q, b("x"))));
        String m = e.getMessage();
        assertTrue(m.startsWith("PUT on table T failed after 6 attempts in "), m);
        assertTrue(m.contains("last server " + s1.address() + ": "), m);
        assertFalse(m.contains("\n"), m);
        assertEquals(s1.address(), e.server());
        assertEquals("T", e.table());
        assertTrue(cluster.master.locates.get() >= 6, "each connect failure dropped the server's locations: " + cluster.master.locates);
        assertArrayEquals(b("x"), t.get(b("a")).getValue(FakeCluster.F, FakeCluster.Q), "the other servers still answer");
    }

    @Test
    void theOperationTimeoutEndsTheRetriesEarly() throws IOException {
        cluster.servers.get(1).stop();
        try (Connection c = Connection.open(cluster.clientConf().set(ClientSettings.RETRIES_KEY, "15")
            .set(ClientSettings.PAUSE_KEY, "20").set(ClientSettings.OPERATION_TIMEOUT_KEY, "100"))) {
            RetriesExhaustedException e = assertThrows(RetriesExhaustedException.class,
                () -> c.getTable("T").put(new Put(b("f")).addColumn(FakeCluster.F, FakeCluster.Q, b("x"))));
            // waits 20, 40, 60 ms: at the latest the third would end past 100 ms, long before 15 retries
            assertTrue(e.getMessage().contains("the next would pass hbase.client.operation.timeout=100 ms"), e.getMessage());
            assertTrue(e.getMessage().matches("PUT on table T failed after [123] attempts: .*"), e.getMessage());
        }
    }

    @Test
    void anOfflineServerIsNotCalledUntilLocateSaysItIsBack() throws IOException {
        cluster.move("T", 0, 0, false);
        Table t = conn.getTable("T");
        RetriesExhaustedException e = assertThrows(RetriesExhaustedException.class,
            () -> t.put(new Put(b("a")).addColumn(FakeCluster.F, FakeCluster.Q, b("x"))));
        assertTrue(e.getMessage().contains("offline"), e.getMessage());
        assertEquals(0, cluster.servers.get(0).calls(Method.PUT));
        assertEquals(6, cluster.master.locates.get(), "every attempt located again");
        cluster.move("T", 0, 0, true);
        t.put(new Put(b("a")).addColumn(FakeCluster.F, FakeCluster.Q, b("x")));
        assertEquals(1, cluster.servers.get(0).calls(Method.PUT));
    }

    @Test
    void aMissingTableIsNotRetried() {
        RemoteException e = assertThrows(RemoteException.class, () -> conn.getTable("Missing").get(b("r")));
        assertEquals(ErrorCode.TABLE_NOT_FOUND, e.code());
        assertEquals(1, cluster.master.locates.get());
    }

    @Test
    void aPutToAMissingFamilyFailsAtOnceNamingFamilyAndTable() throws IOException {
        // the default retry settings: a put that is retried fails only after about 108 s
        try (Connection c = Connection.open(cluster.clientConf()
            .set(ClientSettings.PAUSE_KEY, Long.toString(ClientSettings.DEFAULT_PAUSE_MS))
            .set(ClientSettings.RETRIES_KEY, Integer.toString(ClientSettings.DEFAULT_RETRIES)))) {
            Table t = c.getTable("T");
            t.put(new Put(b("a")).addColumn(FakeCluster.F, FakeCluster.Q, b("x"))); // located and connected: timed below
            FakeCluster.Server s0 = cluster.servers.get(0);

            RemoteException e = assertTimeoutPreemptively(Duration.ofSeconds(1), () -> assertThrows(RemoteException.class,
                () -> t.put(new Put(b("b")).addColumn(b("nope"), FakeCluster.Q, b("x")))));
            assertEquals(ErrorCode.NO_SUCH_COLUMN_FAMILY, e.code());
            assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("'T'"), e.getMessage());
            assertEquals(2, s0.calls(Method.PUT), "the put to the missing family was sent once, not retried");
            assertNull(s0.rows.get(b("b")));

            List<Put> batch = List.of(new Put(b("c")).addColumn(FakeCluster.F, FakeCluster.Q, b("x")),
                new Put(b("e")).addColumn(b("nope"), FakeCluster.Q, b("x"))); // rows of servers 0 and 1
            RemoteException inBatch = assertTimeoutPreemptively(Duration.ofSeconds(1),
                () -> assertThrows(RemoteException.class, () -> t.put(batch)));
            assertEquals(ErrorCode.NO_SUCH_COLUMN_FAMILY, inBatch.code());
            assertEquals(1, cluster.servers.get(1).calls(Method.PUT), "the failed part of the batch was not resent");
        }
    }

    @Test
    void aFailedPartOfABatchIsResentAlone() throws IOException {
        Table t = conn.getTable("T");
        cluster.servers.get(2).failNext(Method.PUT, 1, new FakeCluster.CallQueueTooBigException());
        List<Put> puts = new ArrayList<>();
        for (String r : rows(60, 5)) {
            puts.add(new Put(b(r)).addColumn(FakeCluster.F, FakeCluster.Q, b(r)));
        }
        t.put(puts);
        assertEquals(1, cluster.servers.get(0).calls(Method.PUT));
        assertEquals(1, cluster.servers.get(1).calls(Method.PUT));
        assertEquals(2, cluster.servers.get(2).calls(Method.PUT), "only the busy server's part went again");
        assertEquals(60, cluster.servers.stream().mapToInt(s -> s.rows.size()).sum());
    }
}
