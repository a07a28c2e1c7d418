package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.client.ClientSettings;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.wal.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real region server process (a child JVM) under a concurrent write load of every
 * durability, sent by the real client over real sockets; restart on the same data, check, repeat.
 *
 * <p>Writers: two SYNC_WAL (one single puts, one batches of 5), one FSYNC_WAL, two ASYNC_WAL, one
 * SKIP_WAL, each its own connection, each sending its next put only after the previous one answered.
 * The server is killed (Process.destroyForcibly) after a seeded random number of acknowledgements.
 * Each restart changes the server's paths (MVCC order, request buffers, legacy or staged write path)
 * so every crash point runs a different combination.
 *
 * <p>Properties checked after every restart:
 * <ul>
 *   <li>SYNC_WAL, FSYNC_WAL: every acknowledged put is readable (now and after every later crash).
 *   <li>ASYNC_WAL (the exact property): an acknowledged ASYNC put may be missing only if no SYNC or
 *       FSYNC put that was SENT AFTER the ASYNC put's acknowledgement was acknowledged. (The ASYNC put
 *       had its sequence id when it was acknowledged; the later SYNC put got a higher one, and its sync
 *       writes every record up to it.) Also, per writer, the missing puts are a suffix of its acknowledged
 *       puts (the WAL is replayed as a prefix in sequence order). ASYNC puts that survived are
 *       then required like SYNC ones.
 *   <li>SKIP_WAL: nothing required (such puts are only in the memstore until a flush).
 * </ul>
 * A logical clock (one AtomicLong) orders acknowledgements and sends across threads.
 */
@Timeout(120)
class DurabilityCrashTest {
    /** The child server's JVM: small heap, serial GC, quick start. */
    private static final String[] SERVER_JVM = {"-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"};
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private static final Durability[] WRITERS = {Durability.SYNC_WAL, Durability.SYNC_WAL, Durability.FSYNC_WAL,
        Durability.ASYNC_WAL, Durability.ASYNC_WAL, Durability.SKIP_WAL};
    private static final int CRASHES = 4;

    /** One acknowledged put (or batch): its rows, and the clock when it was sent and acknowledged. */
    private record Ack(int writer, List<String> rows, long sentAt, long ackedAt) {
    }

    private final AtomicLong clock = new AtomicLong();
    /** Rows that must be readable from now on: row -> value. */
    private final Map<String, String> required = new ConcurrentHashMap<>();

    @Test
    void acknowledgedWritesSurviveKillNineAsTheirDurabilityPromises(@TempDir Path home) throws Exception {
        StorageAssumption.assumeStorage();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String where = "seed " + seed + " (new Random(seed) picks the crash points)";
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        writeConf(home, port, 0);
        ChildRegionServer server = new ChildRegionServer(home, SERVER_JVM);
        server.awaitServing(where);
        try (Connection c = Connection.open(HOST, port)) {
            c.getAdmin().createTable(new TableDescriptor("Crash", F, Compression.NONE),
                new byte[][] {"w2".getBytes(StandardCharsets.US_ASCII), "w4".getBytes(StandardCharsets.US_ASCII)});
        }
        int checkedAsync = 0;
        int lostAsync = 0;
        for (int crash = 0; crash < CRASHES; crash++) {
            int killAfter = 100 + random.nextInt(900);
            String point = where + ", crash " + (crash + 1) + " killed after " + killAfter + " acks, server paths "
                + pathsOf(crash);
            List<Ack> acks = new CopyOnWriteArrayList<>();
            AtomicInteger ackCount = new AtomicInteger();
            CountDownLatch enough = new CountDownLatch(1);
            List<Thread> writers = new ArrayList<>();
            List<Connection> conns = new ArrayList<>();
            for (int w = 0; w < WRITERS.length; w++) {
                Connection c = Connection.open(HOST, port, ClientSettings.DEFAULTS.withRetries(0)); // fail at the kill
                conns.add(c);
                int id = w;
                int gen = crash;
                Thread th = new Thread(() -> write(c.getTable("Crash"), id, gen, acks, ackCount, killAfter, enough));
                writers.add(th);
                th.start();
            }
            // the kill: after the target acks, or after 10 s with what we have (a loaded machine)
            enough.await(10, TimeUnit.SECONDS);
            server.process.destroyForcibly();
            assertTrue(server.process.waitFor(30, TimeUnit.SECONDS), point);
            for (Thread th : writers) {
                th.join(30_000);
            }
            conns.forEach(Connection::close);
            assertTrue(ackCount.get() > 0, "no write was acknowledged before the kill: " + point);

            writeConf(home, port, crash + 1);
            server = new ChildRegionServer(home, SERVER_JVM);
            server.awaitServing(point);
            try (Connection c = Connection.open(HOST, port)) {
                Table t = c.getTable("Crash");
                // SYNC/FSYNC: every ack of this round joins the required set; then everything required must be there
                for (Ack a : acks) {
                    if (WRITERS[a.writer()] == Durability.SYNC_WAL || WRITERS[a.writer()] == Durability.FSYNC_WAL) {
                        a.rows().forEach(r -> required.put(r, value(r)));
                    }
                }
                List<String> lost = new ArrayList<>();
                for (Map.Entry<String, String> e : required.entrySet()) {
                    if (!e.getValue().equals(read(t, e.getKey()))) {
                        lost.add(e.getKey());
                    }
                }
                assertEquals(List.of(), lost.subList(0, Math.min(5, lost.size())),
                    lost.size() + " acknowledged SYNC/FSYNC puts lost, " + point);
                // ASYNC: missing only after the last acknowledged SYNC/FSYNC send; missing = suffix per writer
                long lastSyncedSend = -1;
                for (Ack a : acks) {
                    if (WRITERS[a.writer()] == Durability.SYNC_WAL || WRITERS[a.writer()] == Durability.FSYNC_WAL) {
                        lastSyncedSend = Math.max(lastSyncedSend, a.sentAt());
                    }
                }
                for (int w = 0; w < WRITERS.length; w++) {
                    if (WRITERS[w] != Durability.ASYNC_WAL) {
                        continue;
                    }
                    boolean missingSeen = false;
                    for (Ack a : acks) {
                        if (a.writer() != w) {
                            continue;
                        }
                        String row = a.rows().get(0);
                        boolean present = value(row).equals(read(t, row));
                        checkedAsync++;
                        if (!present) {
                            lostAsync++;
                            missingSeen = true;
                            assertTrue(a.ackedAt() > lastSyncedSend, "ASYNC put " + row + " acknowledged at tick "
                                + a.ackedAt() + " is lost although a SYNC/FSYNC put sent later (tick " + lastSyncedSend
                                + ") was acknowledged, " + point);
                        } else {
                            assertTrue(!missingSeen, "ASYNC writer " + w + ": " + row
                                + " survived after an earlier acknowledged put of the same writer was lost, " + point);
                            required.put(row, value(row)); // recovered: must stay from now on
                        }
                    }
                }
            }
        }
        assertTrue(required.size() >= 400, "enough writes were checked: " + required.size() + ", " + where);
        assertTrue(checkedAsync > 0, "ASYNC puts were checked");
        System.out.println("DurabilityCrashTest: " + required.size() + " required rows, " + checkedAsync
            + " ASYNC acks checked, " + lostAsync + " of them lost (allowed), " + where);
        server.process.destroyForcibly();
        server.process.waitFor(30, TimeUnit.SECONDS);
    }

    private static String pathsOf(int restart) {
        return "preassign=" + (restart % 2 == 0) + ", pooled=" + (restart % 4 >= 2) + ", write.path="
            + (restart % 3 != 0 ? "staged" : "legacy");
    }

    /** The site file of restart number {@code restart}: MVCC order and request buffers change each time. */
    private static void writeConf(Path home, int port, int restart) throws IOException {
        boolean preassign = restart % 2 == 0;
        boolean pooled = restart % 4 >= 2;
        boolean staged = restart % 3 != 0;
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/engine-site.xml"), "<?xml version=\"1.0\"?>\n<configuration>\n"
            + prop("hbase.regionserver.hostname", HOST) + prop("hbase.regionserver.port", String.valueOf(port))
            + prop("hbase.regionserver.handler.count", "8")
            + prop("hbase.hregion.memstore.flush.size", "262144")
            + prop("hbase.regionserver.logroll.size", "131072") // several WAL files per round
            + prop("hbase.hregion.mvcc.preassign", String.valueOf(preassign))
            + prop("hbase.server.allocator.pool.enabled", String.valueOf(pooled))
            + prop("heaplab.rpc.cell.decoder", pooled ? "zero-copy" : "copying")
            + prop("heaplab.regionserver.write.path", staged ? "staged" : "legacy")
            + "</configuration>\n");
    }

    private static String prop(String k, String v) {
        return "<property><name>" + k + "</name><value>" + v + "</value></property>\n";
    }

    private static String value(String row) {
        return "value-" + row + "-" + "x".repeat(row.length() * 3);
    }

    private static String read(Table t, String row) throws IOException {
        byte[] v = t.get(row.getBytes(StandardCharsets.US_ASCII)).getValue(F, Q);
        return v == null ? null : new String(v, StandardCharsets.US_ASCII);
    }

    private void write(Table t, int id, int gen, List<Ack> acks, AtomicInteger count, int killAfter, CountDownLatch enough) {
        Durability d = WRITERS[id];
        int batch = id == 1 ? 5 : 1;
        for (int i = 0; ; i++) {
            List<String> rows = new ArrayList<>();
            List<Put> puts = new ArrayList<>();
            for (int j = 0; j < batch; j++) {
                String row = "w" + id + "-g" + gen + "-" + String.format("%06d", i) + "-" + j;
                rows.add(row);
                puts.add(new Put(row.getBytes(StandardCharsets.US_ASCII))
                    .addColumn(F, Q, value(row).getBytes(StandardCharsets.US_ASCII)).setDurability(d));
            }
            long sentAt = clock.incrementAndGet();
            try {
                if (batch == 1) {
                    t.put(puts.get(0));
                } else {
                    t.put(puts);
                }
            } catch (IOException e) {
                return; // the server was killed: this put is not acknowledged
            }
            acks.add(new Ack(id, rows, sentAt, clock.incrementAndGet()));
            if (count.addAndGet(batch) >= killAfter) {
                enough.countDown();
            }
        }
    }

}
