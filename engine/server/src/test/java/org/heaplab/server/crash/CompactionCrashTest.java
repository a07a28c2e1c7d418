package org.heaplab.server.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.heaplab.client.ClientSettings;
import org.heaplab.client.Connection;
import org.heaplab.client.Delete;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.util.CrashPoints;
import org.heaplab.server.ChildRegionServer;
import org.heaplab.server.StorageAssumption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kill that {@link CrashPointTest} finds only now and then, made on purpose: rows put and flushed into
 * one store file, deleted and flushed into a newer one, no WAL file holding either any more; then a major
 * compaction (which drops the delete markers with the puts they mask) is cut short right after removing its
 * first input. The deleted rows must stay deleted after the restart.
 */
@Timeout(120)
class CompactionCrashTest {
    private static final String[] SERVER_JVM = {"-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1"};
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private static final String T = LoadWriters.TABLE;

    private ChildRegionServer child;

    @AfterEach
    void killTheChild() throws InterruptedException {
        if (child != null) {
            child.process.destroyForcibly();
            child.process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void deletedRowsStayDeletedWhenACompactionIsCutShortAfterItsFirstRemoval(@TempDir Path home) throws Exception {
        StorageAssumption.assumeStorage();
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ServerVariant variant = ServerVariant.ALL.get(0);
        variant.writeSite(home, HOST, port);
        child = new ChildRegionServer(home, SERVER_JVM[0], SERVER_JVM[1], SERVER_JVM[2], SERVER_JVM[3],
            "-D" + CrashPoints.KEY + "=" + CrashPoints.COMPACTION_AFTER_FIRST_REMOVAL);
        child.awaitServing("compaction crash test");
        try (Connection c = Connection.open(HOST, port, ClientSettings.DEFAULTS.withRetries(0))) { // fail at the halt
            c.getAdmin().createTable(new TableDescriptor(T, LoadWriters.F, Compression.NONE), new byte[0][]);
            Table t = c.getTable(T);
            t.put(puts("deleted", 100));
            c.getAdmin().flush(T); // store file 1: the puts
            List<Delete> deletes = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                deletes.add(new Delete(LoadWriters.b(row("deleted", i))));
            }
            t.delete(deletes);
            c.getAdmin().flush(T); // store file 2: the markers
            // another table's edits roll the WAL; once they are flushed, no WAL file holds the puts or markers
            c.getAdmin().createTable(new TableDescriptor("Other", LoadWriters.F, Compression.NONE), new byte[0][]);
            c.getTable("Other").put(puts("other", 200));
            c.getAdmin().flush("Other");
            try {
                c.getAdmin().majorCompact(T);
            } catch (IOException expected) {
                // the server halted inside the compaction
            }
        }
        assertTrue(child.process.waitFor(60, TimeUnit.SECONDS), "the compaction reached its crash point");
        assertEquals(CrashPoints.HALT_STATUS, child.process.exitValue(), () -> String.join("\n", child.output));

        child = new ChildRegionServer(home, SERVER_JVM);
        child.awaitServing("restart after the compaction's crash point");
        try (Connection c = Connection.open(HOST, port)) {
            Table t = c.getTable(T);
            List<String> back = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                if (!t.get(LoadWriters.b(row("deleted", i))).isEmpty()) {
                    back.add(row("deleted", i));
                }
            }
            assertEquals(0, back.size(), back.size() + " deleted rows came back, e.g. " + back.subList(0, Math.min(3, back.size())));
            assertEquals(RowLedger.value(row("other", 199)), new String(c.getTable("Other")
                .get(LoadWriters.b(row("other", 199))).getValue(LoadWriters.F, LoadWriters.Q)));
        }
    }

    private static String row(String prefix, int i) {
        return String.format("%s-%04d", prefix, i);
    }

    private static List<Put> puts(String prefix, int n) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String row = row(prefix, i);
            puts.add(new Put(LoadWriters.b(row)).addColumn(LoadWriters.F, LoadWriters.Q,
                LoadWriters.b(RowLedger.value(row))));
        }
        return puts;
    }
}
