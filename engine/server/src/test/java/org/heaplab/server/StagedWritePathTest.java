package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.PutDecoder;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.wal.Wal;
import org.heaplab.core.wal.WalReader;
import org.heaplab.core.wal.WalRecord;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** heaplab.regionserver.write.path=staged: correctness under concurrency, answers from the post-sync stage, errors. */
@Timeout(90)
class StagedWritePathTest {
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private static final byte[][] SPLITS = {b("r2"), b("r4"), b("r6")};

    @TempDir
    Path root;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** A ServerCall that records its answer and the thread that sent it. */
    private static final class RecordingCall implements ServerCall {
        final CompletableFuture<Throwable> answered = new CompletableFuture<>();
        volatile String thread;
        /** Run when the answer is sent, before it is recorded (a check of the WAL file at that moment). */
        volatile Runnable atAnswer = () -> { };
        final List<CompletableFuture<?>> holds = new CopyOnWriteArrayList<>();

        @Override
        public void reply(RpcService.Reply reply) {
            thread = Thread.currentThread().getName();
            atAnswer.run();
            answered.complete(null);
        }

        @Override
        public void fail(Throwable t) {
            thread = Thread.currentThread().getName();
            answered.complete(t);
        }

        @Override
        public void holdRequestUntil(CompletableFuture<?> f) {
            holds.add(f);
        }

        @Override
        public void closeAfterResponse(AutoCloseable resource) {
            answered.whenComplete((v, e) -> {
                try {
                    resource.close();
                } catch (Exception ignored) {
                    // test helper
                }
            });
        }
    }

    @Test
    void answersComeFromThePostSyncStageAndEveryAnsweredPutIsVisible() throws Exception {
        Configuration conf = new Configuration().set("hbase.rootdir", root.toString());
        try (OnlineRegions regions = OnlineRegions.open(conf)) {
            regions.createTable(new TableDescriptor("T", F, Compression.NONE), SPLITS);
            StagedWritePath path = new StagedWritePath(regions, 3, 2, 4);
            try {
                List<RecordingCall> calls = new ArrayList<>();
                List<String> unsynced = new CopyOnWriteArrayList<>();
                for (int i = 0; i < 200; i++) {
                    Durability d = Durability.values()[1 + i % 4];
                    RecordingCall c = new RecordingCall();
                    calls.add(c);
                    String row = "r" + (i % 8) + "-" + i;
                    if (d == Durability.SYNC_WAL || d == Durability.FSYNC_WAL) {
                        c.atAnswer = () -> {
                            if (!rowsInWal().contains(row)) {
                                unsynced.add(d + " put " + row + " answered before its record was in the WAL file");
                            }
                        };
                    }
                    List<KeyValue> cells = List.of(kv(row, "v" + i), kv("r" + ((i + 3) % 8) + "-x" + i, "w" + i));
                    path.put("T", PutDecoder.toPuts(cells), d, c); // two regions per put
                }
                for (int i = 0; i < calls.size(); i++) {
                    RecordingCall c = calls.get(i);
                    assertEquals(null, c.answered.get(30, TimeUnit.SECONDS), "put " + i);
                    assertTrue(c.thread.startsWith("WritePath.postsync"), "answered from " + c.thread);
                    assertEquals(2, c.holds.size(), "one hold per region part");
                    assertEquals(1, liveCells(regions, "r" + (i % 8) + "-" + i).size(), "visible once answered: " + i);
                }
                assertEquals(List.of(), unsynced);
                RecordingCall bad = new RecordingCall();
                path.put("Nope", PutDecoder.toPuts(List.of(kv("r1", "v"))), Durability.SYNC_WAL, bad);
                assertNotNull(bad.answered.get(10, TimeUnit.SECONDS));
            } finally {
                path.close();
            }
        }
    }

    /** Puts to one row, mixed durabilities, queued in order: the last one queued is the value that stays. */
    @Test
    void writesToOneRowKeepTheirArrivalOrder() throws Exception {
        Configuration conf = new Configuration().set("hbase.rootdir", root.toString());
        try (OnlineRegions regions = OnlineRegions.open(conf)) {
            regions.createTable(new TableDescriptor("T", F, Compression.NONE), SPLITS);
            StagedWritePath path = new StagedWritePath(regions, 2, 2, 2);
            try {
                List<RecordingCall> calls = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    RecordingCall c = new RecordingCall();
                    calls.add(c);
                    path.put("T", PutDecoder.toPuts(List.of(kv("same", "v" + i))), Durability.values()[1 + i % 4], c);
                }
                for (RecordingCall c : calls) {
                    assertEquals(null, c.answered.get(30, TimeUnit.SECONDS));
                }
                assertEquals("v299", new String(liveCells(regions, "same").get(0).value(), StandardCharsets.US_ASCII));
            } finally {
                path.close();
            }
        }
    }

    /** Rows of the records in the WAL files now (read from copies: the live file is being appended to). */
    private Set<String> rowsInWal() {
        Set<String> rows = new HashSet<>();
        try {
            for (Path f : Wal.listFiles(root.resolve("WALs"))) {
                Path copy = Files.createTempFile(root, "walcopy", ".tmp");
                Files.copy(f, copy, StandardCopyOption.REPLACE_EXISTING);
                try (WalReader r = WalReader.open(copy, true)) {
                    WalRecord rec;
                    while ((rec = r.next()) != null) {
                        rec.cells().forEach(kv -> rows.add(new String(kv.row(), StandardCharsets.US_ASCII)));
                    }
                } finally {
                    Files.deleteIfExists(copy);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return rows;
    }

    private static KeyValue kv(String row, String value) {
        return KeyValue.create(b(row), F, Q, KeyValue.LATEST_TIMESTAMP, KeyValue.Type.PUT, b(value));
    }

    @Test
    void anUnknownWritePathFailsStartUpNamingTheKey() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> RegionServer.start(
            RegionServerTest.conf(root, 0).set(WritePath.KEY, "pipelined")));
        assertEquals("heaplab.regionserver.write.path must be legacy or staged, got 'pipelined'", e.getMessage());
    }

    /** The real server over real sockets: writers share connections; errors are answered; acked puts are readable. */
    @ParameterizedTest(name = "hbase.hregion.mvcc.preassign={0}")
    @ValueSource(booleans = {true, false})
    void concurrentClientsOverTheStagedPath(boolean preassign) throws Exception {
        Configuration conf = RegionServerTest.conf(root, 0).set(WritePath.KEY, "staged")
            .set(StagedWritePath.QUEUE_LENGTH_KEY, "2").set(StagedWritePath.HANDLERS_KEY, "2")
            .set("hbase.hregion.mvcc.preassign", String.valueOf(preassign))
            .set("hbase.hregion.memstore.flush.size", "65536");
        RegionServer server = RegionServer.start(conf);
        List<Throwable> problems = new CopyOnWriteArrayList<>();
        AtomicInteger errorsAnswered = new AtomicInteger();
        try (Connection c1 = Connection.open(HOST, server.port()); Connection c2 = Connection.open(HOST, server.port())) {
            c1.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), SPLITS);
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                int id = w;
                Table t = (w % 2 == 0 ? c1 : c2).getTable("T");
                Table missing = c1.getTable("Missing");
                Thread th = new Thread(() -> {
                    try {
                        for (int i = 0; i < 150; i++) {
                            String row = "r" + ((i + id) % 8) + "-w" + id + "-" + i;
                            Put p = new Put(b(row)).addColumn(F, Q, b("v-" + row)).setDurability(Durability.values()[1 + (i + id) % 4]);
                            if (i % 10 == 5) {
                                List<Put> batch = List.of(p, new Put(b("r" + ((i + id + 4) % 8) + "-b" + id + "-" + i))
                                    .addColumn(F, Q, b("batch")));
                                t.put(batch);
                            } else {
                                t.put(p);
                            }
                            byte[] v = t.get(b(row)).getValue(F, Q);
                            if (v == null || !("v-" + row).equals(new String(v, StandardCharsets.US_ASCII))) {
                                problems.add(new AssertionError("acked put not readable: " + row));
                            }
                            if (i % 25 == 0) {
                                try {
                                    missing.put(new Put(b("x")).addColumn(F, Q, b("x")));
                                    problems.add(new AssertionError("put to a missing table succeeded"));
                                } catch (RemoteException e) {
                                    errorsAnswered.incrementAndGet();
                                }
                                try {
                                    t.put(new Put(b("x")).addColumn(b("nofamily"), Q, b("x")));
                                    problems.add(new AssertionError("put to a missing family succeeded"));
                                } catch (RemoteException e) {
                                    errorsAnswered.incrementAndGet();
                                }
                            }
                        }
                    } catch (Throwable e) {
                        problems.add(e);
                    }
                });
                writers.add(th);
                th.start();
            }
            for (Thread th : writers) {
                th.join();
            }
            assertEquals(List.of(), problems);
            assertEquals(8 * 6 * 2, errorsAnswered.get(), "every failing put was answered with an error");
        } finally {
            server.stop();
        }
        // after a clean stop and restart everything acknowledged is still there
        RegionServer again = RegionServer.start(RegionServerTest.conf(root, 0));
        try (Connection c = Connection.open(HOST, again.port())) {
            assertFalse(c.getTable("T").get(b("r7-w7-0")).isEmpty());
        } finally {
            again.stop();
        }
    }

    /** Every live column of {@code row} of table T, copied onto the heap (kept after the read scope). */
    private static List<KeyValue> liveCells(OnlineRegions regions, String row) throws IOException {
        try (ReadScope scope = new ReadScope()) {
            return regions.get("T", b(row), List.of(), scope).stream().map(Cell::toOwnKeyValue).toList();
        }
    }
}
