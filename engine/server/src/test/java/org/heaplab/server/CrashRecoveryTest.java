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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.client.ClientSettings;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a region server process with SIGKILL while writers run, restarts it on the same data and
 * checks that every write the server acknowledged is readable. Three crash points, random in the
 * number of acknowledged writes; the last restart is stopped with SIGTERM, which must flush and exit.
 */
@Timeout(150)
class CrashRecoveryTest {
    /** The child server's JVM: small heap, serial GC, quick start. */
    private static final String[] SERVER_JVM = {"-Xmx256m", "-XX:MaxDirectMemorySize=64m", "-XX:+UseSerialGC"};
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private static final int WRITERS = 4;

    @Test
    void everyAcknowledgedWriteSurvivesSigkill(@TempDir Path home) throws Exception {
        crashAndCheck(home, "");
    }

    /** The same with the hbase2-offheap write path: pooled direct request buffers, zero-copy cells, MSLAB. */
    @Test
    void everyAcknowledgedWriteSurvivesSigkillOnTheOffHeapWritePath(@TempDir Path home) throws Exception {
        crashAndCheck(home, "<property><name>hbase.server.allocator.pool.enabled</name><value>true</value></property>\n"
            + "<property><name>heaplab.rpc.cell.decoder</name><value>zero-copy</value></property>\n"
            + "<property><name>hbase.hregion.memstore.mslab.enabled</name><value>true</value></property>\n");
    }

    private void crashAndCheck(Path home, String extraProperties) throws Exception {
        StorageAssumption.assumeStorage();
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/engine-site.xml"), "<?xml version=\"1.0\"?>\n<configuration>\n"
            + "<property><name>hbase.regionserver.hostname</name><value>" + HOST + "</value></property>\n"
            + "<property><name>hbase.regionserver.port</name><value>" + port + "</value></property>\n"
            + "<property><name>hbase.regionserver.handler.count</name><value>8</value></property>\n"
            + "<property><name>hbase.hregion.memstore.flush.size</name><value>65536</value></property>\n"
            + extraProperties + "</configuration>\n");
        Map<String, String> acked = new ConcurrentHashMap<>();
        Random random = new Random();
        AtomicInteger generation = new AtomicInteger();

        ChildRegionServer server = new ChildRegionServer(home, SERVER_JVM);
        server.awaitServing("crash test");
        try (Connection c = Connection.open(HOST, port)) {
            c.getAdmin().createTable(new TableDescriptor("Crash", F, Compression.NONE),
                new byte[][] {"w1".getBytes(StandardCharsets.US_ASCII), "w3".getBytes(StandardCharsets.US_ASCII)});
        }
        for (int crash = 0; crash < 3; crash++) {
            int gen = generation.incrementAndGet();
            int killAfter = 200 + random.nextInt(1500);
            AtomicInteger ackedThisRound = new AtomicInteger();
            CountDownLatch enough = new CountDownLatch(1);
            List<Thread> writers = new ArrayList<>();
            try (Connection c = Connection.open(HOST, port, ClientSettings.DEFAULTS.withRetries(0))) { // fail at the kill
                Table t = c.getTable("Crash");
                for (int w = 0; w < WRITERS; w++) {
                    int id = w;
                    Thread th = new Thread(() -> write(t, id, gen, acked, ackedThisRound, killAfter, enough));
                    writers.add(th);
                    th.start();
                }
                assertTrue(enough.await(60, TimeUnit.SECONDS), "writers acknowledged only " + ackedThisRound.get());
                server.process.destroyForcibly();
                assertTrue(server.process.waitFor(30, TimeUnit.SECONDS));
                for (Thread th : writers) {
                    th.join(30_000);
                }
            }
            server = new ChildRegionServer(home, SERVER_JVM);
            server.awaitServing("crash test");
            try (Connection c = Connection.open(HOST, port)) {
                Table t = c.getTable("Crash");
                int missing = 0;
                String example = null;
                for (Map.Entry<String, String> e : acked.entrySet()) {
                    byte[] v = t.get(e.getKey().getBytes(StandardCharsets.US_ASCII)).getValue(F, Q);
                    if (v == null || !e.getValue().equals(new String(v, StandardCharsets.US_ASCII))) {
                        missing++;
                        example = e.getKey();
                    }
                }
                assertEquals(0, missing, "acknowledged writes lost after crash " + (crash + 1) + " (killed after "
                    + killAfter + " acks), e.g. " + example);
            }
        }
        assertTrue(acked.size() >= 600, "enough writes were checked: " + acked.size());
        server.process.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its stdout)
        assertTrue(server.process.waitFor(60, TimeUnit.SECONDS), "SIGTERM ends the server");
        server.drain.join(10_000); // the output up to the process's end
        List<String> lastOutput = server.output;
        assertTrue(lastOutput.stream().anyMatch(l -> l.contains("] stopped")), () -> "clean stop logged: " + lastOutput);
    }

    /** Writes rows until the connection fails; single puts and batches of 5 alternate per writer. */
    private static void write(Table t, int id, int gen, Map<String, String> acked, AtomicInteger count, int killAfter,
                              CountDownLatch enough) {
        for (int i = 0; ; i++) {
            try {
                if (id % 2 == 0) {
                    String row = "w" + id + "-g" + gen + "-" + i;
                    String value = "value-" + row;
                    t.put(new Put(row.getBytes(StandardCharsets.US_ASCII)).addColumn(F, Q, value.getBytes(StandardCharsets.US_ASCII)));
                    acked.put(row, value);
                    if (count.incrementAndGet() >= killAfter) {
                        enough.countDown();
                    }
                } else {
                    List<Put> batch = new ArrayList<>();
                    List<String> rows = new ArrayList<>();
                    for (int j = 0; j < 5; j++) {
                        String row = "w" + id + "-g" + gen + "-" + i + "-" + j;
                        rows.add(row);
                        batch.add(new Put(row.getBytes(StandardCharsets.US_ASCII)).addColumn(F, Q,
                            ("value-" + row).getBytes(StandardCharsets.US_ASCII)));
                    }
                    t.put(batch);
                    for (String row : rows) {
                        acked.put(row, "value-" + row);
                    }
                    if (count.addAndGet(5) >= killAfter) {
                        enough.countDown();
                    }
                }
            } catch (IOException e) {
                return; // the server was killed: stop writing
            }
        }
    }
}
