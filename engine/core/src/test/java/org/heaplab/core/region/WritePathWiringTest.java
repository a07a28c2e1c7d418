package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.TestKv.s;
import static org.heaplab.core.region.OnlineRegionsTest.FAMILY;
import static org.heaplab.core.region.OnlineRegionsTest.SPLITS;
import static org.heaplab.core.region.OnlineRegionsTest.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.StorageConstants;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.wal.GroupCommitWal;
import org.heaplab.core.wal.WalTuning;
import org.heaplab.core.wal.Mvcc;
import org.heaplab.core.wal.Wal;
import org.heaplab.core.wal.WalReader;
import org.heaplab.core.wal.WalRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The group-commit WAL wired into the regions: durability per table and per put, the MVCC switch, cell retention. */
@Timeout(60)
class WritePathWiringTest {
    @TempDir
    Path root;

    private Configuration conf() {
        return new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root).set(StorageKeys.BLOCK_CACHE_BYTES,
            String.valueOf(4 << 20));
    }

    /** Rows of every record in the WAL files (read while the WAL is open: only what reached the file). */
    private Set<String> rowsInWal() throws IOException {
        Set<String> rows = new HashSet<>();
        for (Path f : Wal.listFiles(root.resolve(StorageConstants.WAL_DIR))) {
            try (WalReader r = WalReader.open(f, true)) {
                WalRecord rec;
                while ((rec = r.next()) != null) {
                    for (KeyValue kv : rec.cells()) {
                        rows.add(s(kv.row()));
                    }
                }
            }
        }
        return rows;
    }

    @Test
    void tableDurabilityIsStoredWithTheTable() throws Exception {
        try (OnlineRegions o = OnlineRegions.open(conf())) {
            o.createTable(new TableDescriptor("A", FAMILY, Compression.NONE, Durability.ASYNC_WAL), new byte[0][]);
            o.createTable(new TableDescriptor("D", FAMILY, Compression.NONE), new byte[0][]);
        }
        try (OnlineRegions o = OnlineRegions.open(conf())) {
            assertEquals(Durability.ASYNC_WAL, o.describe("A").durability());
            assertEquals(Durability.USE_DEFAULT, o.describe("D").durability());
        }
    }

    @Test
    void skipWalWritesNoRecordWhileSyncAndTheTableDefaultDo() throws Exception {
        try (OnlineRegions o = OnlineRegions.open(conf())) {
            o.createTable(new TableDescriptor("T", FAMILY, Compression.NONE), SPLITS);
            o.createTable(new TableDescriptor("S", FAMILY, Compression.NONE, Durability.SKIP_WAL), new byte[0][]);
            o.put("T", List.of(put("skip", "q", 1, "v")), Durability.SKIP_WAL).get(10, TimeUnit.SECONDS);
            o.put("T", List.of(put("sync", "q", 1, "v")), Durability.SYNC_WAL);
            o.put("T", List.of(put("default", "q", 1, "v")));
            o.put("S", List.of(put("table-skip", "q", 1, "v")));
            o.put("S", List.of(put("override", "q", 1, "v")), Durability.FSYNC_WAL);
            Set<String> rows = rowsInWal();
            assertEquals(Set.of("sync", "default", "override"), rows);
            for (String r : List.of("skip", "sync", "default")) {
                assertEquals(1, OwnedRows.get(o, "T", b(r)).size(), "every put is visible: " + r);
            }
            assertEquals(1, OwnedRows.get(o, "S", b("table-skip")).size());
        }
    }

    @Test
    void asyncPutIsAcknowledgedBeforeItsSyncAndItsCellsAreFreedOnceEncoded() throws Exception {
        Configuration conf = conf().set(WalTuning.ASYNC_FLUSH_INTERVAL, "600000"); // no periodic sync
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            o.createTable(new TableDescriptor("T", FAMILY, Compression.NONE), SPLITS);
            CompletableFuture<Void> async = o.put("T", List.of(put("async", "q", 1, "v")), Durability.ASYNC_WAL);
            assertEquals(1, OwnedRows.get(o, "T", b("async")).size(), "visible at once");
            async.get(10, TimeUnit.SECONDS); // the consumer encoded the cells: the caller's buffer is free
            assertFalse(rowsInWal().contains("async"), "acknowledged before any sync wrote it");
            CompletableFuture<Void> sync = o.put("T", List.of(put("sync", "q", 1, "v")), Durability.SYNC_WAL);
            assertTrue(sync.isDone());
            assertEquals(Set.of("async", "sync"), rowsInWal());
        }
    }

    @Test
    void hsyncMakesTheDefaultDurabilityForceTheFile() throws Exception {
        try (OnlineRegions o = OnlineRegions.open(conf())) {
            o.createTable(new TableDescriptor("T", FAMILY, Compression.NONE), SPLITS);
            o.put("T", List.of(put("a", "q", 1, "v")));
            assertEquals(0, o.stats().walForceCount(), "USE_DEFAULT = SYNC_WAL: written, not forced");
            assertTrue(o.stats().walSyncCount() >= 1);
        }
        try (OnlineRegions o = OnlineRegions.open(conf().set(StorageKeys.WAL_HSYNC, "true"))) {
            o.put("T", List.of(put("b", "q", 1, "v")));
            assertTrue(o.stats().walForceCount() >= 1, "hbase.wal.hsync=true: USE_DEFAULT = FSYNC_WAL");
        }
    }

    /**
     * Cells that are views over a reused buffer (a pooled request buffer): an ASYNC_WAL put returns
     * before the WAL consumer may have encoded them; the buffer is overwritten as soon as the returned
     * future allows. The WAL must hold the original bytes.
     */
    @Test
    void cellsOverAReusedBufferAreReadBeforeTheFutureCompletes() throws Exception {
        try (OnlineRegions o = OnlineRegions.open(conf().set(WalTuning.ASYNC_FLUSH_INTERVAL, "2"))) {
            o.createTable(new TableDescriptor("T", FAMILY, Compression.NONE), SPLITS);
            ByteBuffer shared = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < 300; i++) {
                KeyValue kv = put(String.format("row%03d", i), "q", 1, "value-" + i);
                shared.clear();
                shared.put(kv.getBuffer(), kv.getOffset(), kv.getLength());
                Cell view = new ByteBufferKeyValue(shared, 0, kv.getLength());
                Durability d = i % 3 == 0 ? Durability.SYNC_WAL : Durability.ASYNC_WAL;
                CompletableFuture<Void> done = o.put("T", List.of(view), d);
                done.get(10, TimeUnit.SECONDS); // the pooled buffer's release waits for this
                for (int j = 0; j < kv.getLength(); j++) {
                    shared.put(j, (byte) 0x5A); // the next request reuses the buffer
                }
            }
            o.put("T", List.of(put("last", "q", 1, "v")), Durability.SYNC_WAL);
            int records = 0;
            for (Path f : Wal.listFiles(root.resolve(StorageConstants.WAL_DIR))) {
                try (WalReader r = WalReader.open(f, true)) {
                    WalRecord rec;
                    while ((rec = r.next()) != null) {
                        KeyValue kv = rec.cells().get(0);
                        String row = s(kv.row());
                        if (!row.equals("last")) {
                            assertEquals("value-" + Integer.parseInt(row.substring(3)), s(kv.value()), row);
                        }
                        records++;
                    }
                }
            }
            assertEquals(301, records);
        }
    }

    @ParameterizedTest(name = "hbase.hregion.mvcc.preassign={0}")
    @ValueSource(booleans = {true, false})
    void concurrentPutsUnderBothMvccOrdersAreAllVisibleAndReplayed(boolean preassign) throws Exception {
        Configuration conf = conf().set(Mvcc.PREASSIGN, String.valueOf(preassign))
            .set(StorageKeys.WAL_ROLL_SIZE, "20000"); // roll several times meanwhile
        int threads = 8;
        int perThread = 150;
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            assertTrue(o.stats().mvccDescription().startsWith(preassign ? "PreassignedMvcc" : "LegacyMvcc"), o.stats().mvccDescription());
            o.createTable(new TableDescriptor("T", FAMILY, Compression.NONE), SPLITS);
            List<Thread> ts = new ArrayList<>();
            List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    try {
                        for (int i = 0; i < perThread; i++) {
                            Durability d = Durability.values()[1 + (i % 4)]; // SKIP, ASYNC, SYNC, FSYNC
                            o.put("T", List.of(put("row" + (i * 7 + id) % 100 + "-" + id + "-" + i, "q", 1, "v" + i)), d);
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                ts.add(th);
                th.start();
            }
            for (Thread th : ts) {
                th.join();
            }
            assertEquals(List.of(), errors);
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    assertEquals(1, OwnedRows.get(o, "T", b("row" + (i * 7 + t) % 100 + "-" + t + "-" + i)).size());
                }
            }
        }
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            assertEquals(1, OwnedRows.get(o, "T", b("row" + (7 * 3) % 100 + "-0-3")).size(), "flushed at close, read after reopen");
        }
        assertTrue(Files.isDirectory(root.resolve(StorageConstants.WAL_DIR)));
    }
}
