package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.heaplab.client.ClientSettings;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.wal.FsyncFailingDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A region server whose WAL fsync fails ({@link FsyncFailingDisk}: a test double, a failing disk cannot be
 * made on demand) aborts as HBase's does, on either write path: the put waiting for the sync gets an error through the real client,
 * the server stops serving (a later put fails too) and names the WAL file and the cause; its WAL stays, so a
 * restart on the same data serves what was acknowledged before.
 */
@Timeout(60)
class WalAbortTest {
    private static final byte[] F = b("info0");
    private static final byte[] Q = b("0");
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "staged"})
    void aFailedWalSyncFailsThePutAndAbortsTheServer(String writePath, @TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        try (FsyncFailingDisk disk = FsyncFailingDisk.install()) {
            RegionServer server = RegionServer.start(conf(root).set("heaplab.regionserver.write.path", writePath));
            try (Connection c = Connection.open(HOST, server.port(), ClientSettings.DEFAULTS.withRetries(0))) {
                c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), new byte[0][]);
                Table t = c.getTable("T");
                t.put(put("before", Durability.SYNC_WAL)); // written, no fsync needed
                disk.failForces();
                IOException failed = assertThrows(IOException.class, () -> t.put(put("fsync", Durability.FSYNC_WAL)),
                    "a put whose WAL sync failed is not acknowledged");
                assertTrue(failed.getMessage().contains(FsyncFailingDisk.FORCE_ERROR), failed.getMessage());
                server.awaitStop(); // the abort stops the server by itself
                String reason = server.abortReason();
                assertTrue(reason != null && reason.contains(root.resolve("WALs").toString())
                    && reason.contains(FsyncFailingDisk.FORCE_ERROR), "names the WAL file and the cause: " + reason);
                assertThrows(IOException.class, () -> t.put(put("after", Durability.SYNC_WAL)), "no longer serving");
            }
        }
        RegionServer restarted = RegionServer.start(conf(root)); // the disk works again: the WAL is replayed
        try (Connection c = Connection.open(HOST, restarted.port())) {
            assertArrayEquals(b("v-before"), c.getTable("T").get(b("before")).getValue(F, Q));
        } finally {
            restarted.stop();
        }
    }

    /** The process: one ERROR line naming the WAL file and the cause, then exit status 1 (RegionServer.main). */
    @Test
    void aServerProcessWhoseWalSyncFailsLogsOneLineAndExitsWithStatusOne(@TempDir Path home) throws Exception {
        StorageAssumption.assumeStorage();
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Files.createDirectories(home.resolve("conf"));
        try (Writer w = Files.newBufferedWriter(home.resolve("conf/engine-site.xml"))) {
            new Configuration().set(RegionServer.HOSTNAME_KEY, HOST).set(RegionServer.PORT_KEY, String.valueOf(port))
                .set("hbase.regionserver.handler.count", "4").writeXml(w);
        }
        ChildRegionServer child = new ChildRegionServer(FsyncFailingRegionServer.class, home, "-Xmx128m",
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
        try {
            child.awaitServing("WAL abort test");
            try (Connection c = Connection.open(HOST, port, ClientSettings.DEFAULTS.withRetries(0))) {
                c.getAdmin().createTable(new TableDescriptor("T", F, Compression.NONE), new byte[0][]);
                c.getTable("T").put(put("before", Durability.SYNC_WAL));
                assertThrows(IOException.class, () -> c.getTable("T").put(put("fsync", Durability.FSYNC_WAL)));
            }
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS), "the aborted server's process ends");
            assertEquals(1, child.process.exitValue());
            child.drain.join(10_000);
            List<String> lines = child.output.stream().filter(l -> l.contains("ERROR")).toList();
            assertEquals(1, lines.size(), "one ERROR line: " + child.output);
            assertTrue(lines.get(0).contains("aborting the region server: WAL " + home.resolve("data/WALs/wal."))
                && lines.get(0).contains(FsyncFailingDisk.FORCE_ERROR), lines.get(0));
        } finally {
            child.process.destroyForcibly();
            child.process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static Configuration conf(Path root) {
        return new Configuration().set("hbase.rootdir", root.toString()).set(RegionServer.HOSTNAME_KEY, HOST)
            .set(RegionServer.PORT_KEY, "0").set("hbase.regionserver.handler.count", "4");
    }

    private static Put put(String row, Durability d) {
        return new Put(b(row)).addColumn(F, Q, b("v-" + row)).setDurability(d);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
