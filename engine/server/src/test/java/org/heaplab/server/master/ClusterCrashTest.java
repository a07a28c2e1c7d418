package org.heaplab.server.master;

import static org.heaplab.server.master.MiniCluster.HOST;
import static org.heaplab.server.master.MiniCluster.await;
import static org.heaplab.server.master.MiniCluster.shows;
import static org.heaplab.server.master.MiniCluster.statusShows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.server.ChildRegionServer;
import org.heaplab.server.RegionServer;
import org.heaplab.server.TableSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master and three region servers, one of them a real child JVM. Writers keep writing rows spread over
 * every region while that process is killed (destroyForcibly: SIGKILL) and restarted on its data: the master
 * marks it down, then up again with a new start code, and every write that was acknowledged is read back
 * afterwards. Writes to its regions while it is gone fail (not acknowledged) and are retried.
 */
@Timeout(90)
class ClusterCrashTest {
    private static final String[] CHILD_JVM = {"-Xmx200m", "-XX:MaxDirectMemorySize=64m", "-XX:+UseSerialGC"};
    private static final int WRITERS = 3;

    @Test
    void noAcknowledgedWriteIsLostWhenARegionServerProcessIsKilled(@TempDir Path root) throws Exception {
        Master master = Master.start(MiniCluster.masterConf(root.resolve("master"), MiniCluster.freePort(),
            MiniCluster.TIMEOUT_MS));
        String m = master.address();
        List<RegionServer> inJvm = new ArrayList<>();
        ChildRegionServer child = null;
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> writers = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                inJvm.add(RegionServer.start(MiniCluster.serverConf(root.resolve("rs" + i), MiniCluster.freePort(), m)));
            }
            int childPort = MiniCluster.freePort();
            String childName = HOST + ":" + childPort;
            Path home = root.resolve("child");
            writeSite(home, childPort, m);
            child = startChild(home);
            await("three servers online", m, statusShows(m, s -> s.split("\"online\": true").length - 1 == 3));

            try (RawClusterClient c = new RawClusterClient(m, "T")) {
                c.master(Method.CREATE_TABLE, new TableSpec(new TableDescriptor("T", RawClusterClient.F, Compression.NONE),
                    MasterTest.SPLITS).write(new ParamWriter()).toByteArray());
                assertTrue(c.locate().stream().anyMatch(l -> l.server().equals(childName)), "the child holds regions");
            }

            Map<String, String> acked = new ConcurrentHashMap<>();
            AtomicInteger failures = new AtomicInteger();
            Map<String, String> pending = new ConcurrentHashMap<>();
            for (int w = 0; w < WRITERS; w++) {
                int id = w;
                Thread t = new Thread(() -> write(m, id, stop, acked, failures, pending), "writer-" + w);
                writers.add(t);
                t.start();
            }
            awaitAcked(acked, 300);
            long startCode = MiniCluster.startCode(MiniCluster.status(m), childName);
            child.process.destroyForcibly();
            assertTrue(child.process.waitFor(20, TimeUnit.SECONDS));
            int ackedAtKill = acked.size();
            await("the killed server marked down", m, statusShows(m, s -> shows(s, childName, false)));
            try (RawClusterClient c = new RawClusterClient(m, "T")) {
                assertTrue(c.locate().stream().filter(l -> l.server().equals(childName))
                    .noneMatch(RegionLocation::serverOnline), "LOCATE says its regions' server is offline");
            }
            awaitAcked(acked, ackedAtKill + 100); // the other servers' regions keep taking writes

            child = startChild(home);
            await("the restarted server online", m, statusShows(m, s -> shows(s, childName, true)));
            long newStartCode = MiniCluster.startCode(MiniCluster.status(m), childName);
            assertTrue(newStartCode > startCode, "registered again with a new start code");
            awaitAcked(acked, acked.size() + 200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!pending.isEmpty()) {
                assertTrue(System.nanoTime() < deadline, pending.size() + " failed writes never went through");
                Thread.sleep(20);
            }
            stop.set(true);
            for (Thread t : writers) {
                t.join(20_000);
            }
            assertTrue(failures.get() > 0, "some writes failed while the server was gone (and were retried)");

            try (RawClusterClient c = new RawClusterClient(m, "T")) {
                int checked = 0;
                for (Map.Entry<String, String> e : acked.entrySet()) {
                    assertEquals(e.getValue(), c.get(e.getKey()), "acknowledged row " + e.getKey());
                    checked++;
                }
                assertTrue(checked >= 600, "checked " + checked + " rows");
            }
        } finally {
            stop.set(true);
            for (Thread t : writers) {
                t.join(20_000);
            }
            if (child != null) {
                child.process.destroyForcibly();
                child.process.waitFor(20, TimeUnit.SECONDS);
            }
            inJvm.forEach(RegionServer::stop);
            master.stop();
        }
    }

    private static ChildRegionServer startChild(Path home) throws Exception {
        ChildRegionServer child = new ChildRegionServer(home, CHILD_JVM);
        child.awaitServing("cluster crash test");
        return child;
    }

    /**
     * Each writer writes its own rows (row -> value). A failed write is not acknowledged: the row goes to
     * {@code pending} and is tried again every few rows until it is acknowledged, so writers keep writing to
     * the live servers' regions while one server is gone.
     */
    private static void write(String master, int id, AtomicBoolean stop, Map<String, String> acked,
                              AtomicInteger failures, Map<String, String> pending) {
        java.util.ArrayDeque<String> retry = new java.util.ArrayDeque<>();
        RawClusterClient c = new RawClusterClient(master, "T");
        try {
            for (int i = 0; !stop.get(); i++) {
                boolean again = i % 4 == 0 && !retry.isEmpty();
                String row = again ? retry.poll() : MasterTest.row(i) + "-w" + id;
                String value = again ? pending.get(row) : "v" + i + "-w" + id;
                try {
                    c.put(row, value);
                    acked.put(row, value);
                    pending.remove(row);
                } catch (IOException e) { // not acknowledged: it may or may not be written; try it again later
                    failures.incrementAndGet();
                    pending.put(row, value);
                    retry.add(row);
                    c.close();
                    c = new RawClusterClient(master, "T");
                    sleep(10);
                }
            }
        } finally {
            c.close();
        }
    }

    private static void awaitAcked(Map<String, String> acked, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (acked.size() < n) {
            assertTrue(System.nanoTime() < deadline, "only " + acked.size() + " of " + n + " writes acknowledged");
            Thread.sleep(20);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void writeSite(Path home, int port, String master) throws IOException {
        Files.createDirectories(home.resolve("conf"));
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        MiniCluster.serverConf(home.resolve("data"), port, master).asMap().forEach((k, v) ->
            xml.append("<property><name>").append(k).append("</name><value>").append(v).append("</value></property>\n"));
        Files.writeString(home.resolve("conf/engine-site.xml"), xml.append("</configuration>\n").toString());
    }
}
