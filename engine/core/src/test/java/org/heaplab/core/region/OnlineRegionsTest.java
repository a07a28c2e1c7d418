package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.TestKv.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.StorageConstants;
import org.heaplab.core.wal.Wal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class OnlineRegionsTest {
    static final byte[] FAMILY = b("info0");
    static final byte[][] SPLITS = {b("row25"), b("row50"), b("row75")};

    @TempDir
    Path root;

    Configuration conf() {
        return new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root).set(StorageKeys.BLOCK_CACHE_BYTES,
            String.valueOf(4 << 20));
    }

    static KeyValue put(String row, String q, long ts, String value) {
        return KeyValue.create(b(row), FAMILY, b(q), ts, KeyValue.Type.PUT, b(value));
    }

    static KeyValue delete(String row, String q, long ts, KeyValue.Type type) {
        return KeyValue.create(b(row), FAMILY, b(q), ts, type, new byte[0]);
    }

    static String row(int i) {
        return String.format("row%02d", i);
    }

    static OnlineRegions withTable(Configuration conf, Compression c) throws IOException {
        OnlineRegions o = OnlineRegions.open(conf);
        o.createTable(new TableDescriptor("T", FAMILY, c), SPLITS);
        return o;
    }

    /** Writes rows 0..99, columns a and b, value "v<gen>-<row>-<col>" at timestamp gen. */
    static void writeAll(OnlineRegions o, int gen) throws IOException {
        for (int i = 0; i < 100; i++) {
            o.put("T", List.of(put(row(i), "a", gen, "v" + gen + "-" + i + "-a"), put(row(i), "b", gen,
                "v" + gen + "-" + i + "-b")));
        }
    }

    static void assertAll(OnlineRegions o, int gen) throws IOException {
        for (int i = 0; i < 100; i++) {
            List<KeyValue> got = OwnedRows.get(o, "T", b(row(i)));
            assertEquals(List.of(put(row(i), "a", gen, "v" + gen + "-" + i + "-a"),
                put(row(i), "b", gen, "v" + gen + "-" + i + "-b")), got, row(i));
        }
    }

    @Test
    void createPutGetAcrossPresplitRegions() throws IOException {
        try (OnlineRegions o = withTable(conf(), Compression.NONE)) {
            assertTrue(o.tableExists("T"));
            assertEquals(List.of("T"), o.tables());
            assertEquals("info0", s(o.describe("T").family()));
            writeAll(o, 1);
            assertAll(o, 1);
            List<RegionInfo> regions = o.regions("T");
            assertEquals(4, regions.size());
            assertEquals(0, regions.get(0).startKey().length);
            assertEquals("row25", s(regions.get(0).endKey()));
            assertEquals("row75", s(regions.get(3).startKey()));
            for (RegionInfo r : regions) {
                assertTrue(r.memstoreBytes() > 0, "every region got its quarter of the rows: " + r.encodedName());
            }
            assertEquals(List.of(), OwnedRows.get(o, "T", b("nothing")));
            assertThrows(TableExistsException.class, () -> o.createTable(new TableDescriptor("T", FAMILY,
                Compression.NONE), new byte[0][]));
            assertThrows(TableNotFoundException.class, () -> OwnedRows.get(o, "U", b("r")));
            assertThrows(NoSuchColumnFamilyException.class, () -> o.put("T", List.of(
                KeyValue.create(b("r"), b("other"), b("q"), 1, KeyValue.Type.PUT, b("v")))));
            assertThrows(IllegalArgumentException.class, () -> o.createTable(new TableDescriptor("U", FAMILY,
                Compression.NONE), new byte[][] {b("b"), b("a")}));
        }
    }

    @Test
    void latestTimestampBecomesTheServerTime() throws IOException {
        try (OnlineRegions o = withTable(conf(), Compression.NONE)) {
            long before = System.currentTimeMillis();
            o.put("T", List.of(put("r", "q", KeyValue.LATEST_TIMESTAMP, "v")));
            long after = System.currentTimeMillis();
            long ts = OwnedRows.get(o, "T", b("r")).get(0).timestamp();
            assertTrue(ts >= before && ts <= after, "ts " + ts);
        }
    }

    @Test
    void flushMovesTheMemstoreToAStoreFileAndGetsStillSeeEverything() throws IOException {
        try (OnlineRegions o = withTable(conf(), Compression.SNAPPY)) {
            writeAll(o, 1);
            o.flush("T");
            for (RegionInfo r : o.regions("T")) {
                assertEquals(0, r.memstoreBytes());
                assertEquals(1, r.storeFiles().size());
                assertEquals(50, r.storeFiles().get(0).cellCount(), "25 rows x 2 columns");
                assertTrue(Files.isRegularFile(Path.of(r.storeFiles().get(0).path())));
            }
            assertAll(o, 1);
            // newer data in the memstore wins over the file; deletes in the memstore mask file cells
            writeAll(o, 2);
            o.put("T", List.of(delete(row(7), "b", 2, KeyValue.Type.DELETE_COLUMN)));
            assertEquals(List.of(put(row(7), "a", 2, "v2-7-a")), OwnedRows.get(o, "T", b(row(7))));
            assertEquals(List.of(put(row(8), "a", 2, "v2-8-a"), put(row(8), "b", 2, "v2-8-b")), OwnedRows.get(o, "T", b(row(8))));
            assertTrue(o.stats().blockCacheMetrics().get(0).hits() + o.stats().blockCacheMetrics().get(0).misses() > 0);
        }
    }

    @Test
    void majorCompactionMergesEveryFileIntoOneWithTheSameContents() throws IOException {
        try (OnlineRegions o = withTable(conf(), Compression.NONE)) {
            for (int gen = 1; gen <= 4; gen++) {
                writeAll(o, gen);
                o.flush("T");
            }
            o.put("T", List.of(delete(row(3), "a", 10, KeyValue.Type.DELETE_COLUMN)));
            o.flush("T");
            assertEquals(4 * 4 + 1, o.regions("T").stream().mapToInt(r -> r.storeFiles().size()).sum(),
                "4 flushes in every region, the delete's flush in one");
            List<List<KeyValue>> before = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                before.add(OwnedRows.get(o, "T", b(row(i))));
            }
            o.majorCompact("T");
            long cells = 0;
            for (RegionInfo r : o.regions("T")) {
                assertEquals(1, r.storeFiles().size(), "N files became 1");
                cells += r.storeFiles().get(0).cellCount();
                assertEquals(1, Files.list(Path.of(r.storeFiles().get(0).path()).getParent()).count(),
                    "old files deleted");
            }
            assertEquals(199, cells, "newest version per column only, the deleted column and its marker gone");
            for (int i = 0; i < 100; i++) {
                assertEquals(before.get(i), OwnedRows.get(o, "T", b(row(i))), row(i));
            }
            assertEquals(List.of(put(row(3), "b", 4, "v4-3-b")), OwnedRows.get(o, "T", b(row(3))));
        }
    }

    @Test
    void reopenWithoutCloseRecoversEveryPut() throws IOException {
        Configuration conf = conf();
        OnlineRegions crashed = withTable(conf, Compression.SNAPPY);
        writeAll(crashed, 1);
        crashed.flush("T"); // half the history in store files, the newer half only in the WAL
        writeAll(crashed, 2);
        crashed.put("T", List.of(delete(row(5), "a", 2, KeyValue.Type.DELETE)));
        // crash: abandon the instance without close
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            for (int i = 0; i < 100; i++) {
                List<KeyValue> expected = i == 5
                    ? List.of(put(row(i), "a", 1, "v1-5-a"), put(row(i), "b", 2, "v2-5-b"))
                    : List.of(put(row(i), "a", 2, "v2-" + i + "-a"), put(row(i), "b", 2, "v2-" + i + "-b"));
                assertEquals(expected, OwnedRows.get(o, "T", b(row(i))), row(i));
            }
            for (RegionInfo r : o.regions("T")) {
                assertEquals(0, r.memstoreBytes(), "replayed edits were flushed at open");
                assertEquals(2, r.storeFiles().size());
            }
            assertEquals(1, Wal.listFiles(root.resolve(StorageConstants.WAL_DIR)).size(), "replayed WALs deleted");
            writeAll(o, 3);
        }
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            assertAll(o, 3);
        }
    }

    @Test
    void cleanCloseLeavesNothingToReplay() throws IOException {
        Configuration conf = conf();
        try (OnlineRegions o = withTable(conf, Compression.NONE)) {
            writeAll(o, 1);
        }
        assertEquals(List.of(), Wal.listFiles(root.resolve(StorageConstants.WAL_DIR)));
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            for (RegionInfo r : o.regions("T")) {
                assertEquals(0, r.memstoreBytes());
                assertEquals(1, r.storeFiles().size());
            }
            assertAll(o, 1);
        }
    }

    @Test
    void tornWalTailIsTruncatedAtOpen() throws IOException {
        Configuration conf = conf();
        OnlineRegions crashed = withTable(conf, Compression.NONE);
        writeAll(crashed, 1);
        crashed.put("T", List.of(put(row(0), "a", 9, "last")));
        Path wal = Wal.listFiles(root.resolve(StorageConstants.WAL_DIR)).get(0);
        try (var ch = java.nio.channels.FileChannel.open(wal, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 3); // the process died in the middle of the last append
        }
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            assertAll(o, 1); // the torn put was never acknowledged; every earlier one is back
        }
    }

    @Test
    void corruptWalRecordBeforeTheTailFailsTheOpen() throws IOException {
        Configuration conf = conf();
        OnlineRegions crashed = withTable(conf, Compression.NONE);
        writeAll(crashed, 1);
        Path wal = Wal.listFiles(root.resolve(StorageConstants.WAL_DIR)).get(0);
        long offset = StorageConstants.WAL_HEADER_SIZE; // the first record
        try (var f = new java.io.RandomAccessFile(wal.toFile(), "rw")) {
            f.seek(offset + 20);
            int v = f.read();
            f.seek(offset + 20);
            f.write(v ^ 0xff);
        }
        IOException e = assertThrows(IOException.class, () -> OnlineRegions.open(conf));
        assertTrue(e.getMessage().contains(wal.toString()) && e.getMessage().contains("offset " + offset),
            e.getMessage());
        assertTrue(Files.exists(wal), "the damaged WAL is kept for inspection");
    }

    @Test
    void dropTableRemovesItsDataForGood() throws IOException {
        Configuration conf = conf();
        OnlineRegions crashed = withTable(conf, Compression.NONE);
        writeAll(crashed, 1);
        crashed.flush("T");
        writeAll(crashed, 2);
        crashed.dropTable("T");
        assertFalse(crashed.tableExists("T"));
        assertFalse(Files.exists(root.resolve("data/T")));
        assertThrows(TableNotFoundException.class, () -> crashed.put("T", List.of(put("r", "a", 1, "v"))));
        crashed.createTable(new TableDescriptor("T", FAMILY, Compression.NONE), new byte[0][]);
        crashed.put("T", List.of(put(row(1), "a", 7, "new")));
        // crash, then reopen: the old table's WAL edits must not come back into the new table
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            assertEquals(1, o.regions("T").size());
            assertEquals(List.of(put(row(1), "a", 7, "new")), OwnedRows.get(o, "T", b(row(1))));
            assertEquals(List.of(), OwnedRows.get(o, "T", b(row(2))));
        }
    }
}
