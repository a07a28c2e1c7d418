package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.TestKv.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.Lock;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.wal.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The read API of {@link OnlineRegions}: get with qualifiers, multi-get, scan batches, increments, query cache. */
@Timeout(60)
class ReadApiTest {
    static final byte[] FAMILY = b("f");
    static final byte[][] SPLITS = {b("row25"), b("row50"), b("row75")};

    @TempDir
    Path root;

    Configuration conf() {
        return new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root)
            .set(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(4 << 20));
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

    static OnlineRegions withTable(Configuration conf) throws IOException {
        OnlineRegions o = OnlineRegions.open(conf);
        o.createTable(new TableDescriptor("T", FAMILY, Compression.NONE), SPLITS);
        return o;
    }

    /** "row:q=value" per cell, for readable assertions. */
    static List<String> show(List<Cell> cells) {
        List<String> l = new ArrayList<>();
        for (Cell c : cells) {
            l.add(s(c.row()) + ":" + s(c.qualifier()) + "=" + s(c.value()));
        }
        return l;
    }

    @Test
    void getWithQualifiersMergesMemstoreAndFilesWithDeletes() throws IOException {
        try (OnlineRegions o = withTable(conf()); ReadScope scope = new ReadScope()) {
            o.put("T", List.of(put("row10", "a", 1, "a1"), put("row10", "b", 1, "b1"), put("row10", "c", 1, "c1")));
            o.flush("T");
            o.put("T", List.of(put("row10", "a", 2, "a2"), delete("row10", "b", 5, KeyValue.Type.DELETE_COLUMN)));
            assertEquals(List.of("row10:a=a2", "row10:c=c1"), show(o.get("T", b("row10"), List.of(), scope)));
            assertEquals(List.of("row10:c=c1"), show(o.get("T", b("row10"), List.of(b("c"), b("b")), scope)));
            assertEquals(List.of(), show(o.get("T", b("row10"), List.of(b("b")), scope)));
            o.flush("T");
            o.put("T", List.of(delete("row10", "", 1, KeyValue.Type.DELETE_FAMILY)));
            assertEquals(List.of("row10:a=a2"), show(o.get("T", b("row10"), List.of(), scope)));
            o.majorCompact("T");
            assertEquals(List.of("row10:a=a2"), show(o.get("T", b("row10"), List.of(), scope)));
            assertEquals(List.of(), o.get("T", b("absent"), List.of(), scope));
        }
    }

    @Test
    void multiGetAcrossRegionsKeepsTheOrderAsked() throws IOException {
        try (OnlineRegions o = withTable(conf()); ReadScope scope = new ReadScope()) {
            for (int i = 0; i < 100; i += 10) {
                o.put("T", List.of(put(row(i), "q", 1, "v" + i)));
            }
            o.flush("T");
            List<List<Cell>> got = o.multiGet("T", List.of(b(row(90)), b(row(5)), b(row(30)), b(row(60))), scope);
            assertEquals(4, got.size());
            assertEquals(List.of("row90:q=v90"), show(got.get(0)));
            assertEquals(List.of(), got.get(1));
            assertEquals(List.of("row30:q=v30"), show(got.get(2)));
            assertEquals(List.of("row60:q=v60"), show(got.get(3)));
            assertEquals(4, o.stats().readCounters().gets());
        }
    }

    @Test
    void multiGetFiltersEachRowByItsOwnQualifiers() throws IOException {
        try (OnlineRegions o = withTable(conf()); ReadScope scope = new ReadScope()) {
            o.put("T", List.of(put(row(10), "a", 1, "a10"), put(row(10), "b", 1, "b10"), put(row(60), "a", 1, "a60"),
                put(row(60), "b", 1, "b60")));
            o.flush("T");
            o.put("T", List.of(put(row(60), "c", 1, "c60")));
            List<List<Cell>> got = o.multiGet("T", List.of(b(row(10)), b(row(60)), b(row(60))),
                List.of(List.of(b("b")), List.of(), List.of(b("c"), b("a"))), scope);
            assertEquals(List.of("row10:b=b10"), show(got.get(0)));
            assertEquals(List.of("row60:a=a60", "row60:b=b60", "row60:c=c60"), show(got.get(1)));
            assertEquals(List.of("row60:a=a60", "row60:c=c60"), show(got.get(2)));
            assertThrows(IllegalArgumentException.class, () -> o.multiGet("T", List.of(b(row(1))), List.of(), scope));
        }
    }

    /** Follows nextStartRow until done; returns every row key seen, in order. */
    static List<String> scanAll(OnlineRegions o, String start, String stop, int caching) throws IOException {
        List<String> rows = new ArrayList<>();
        byte[] next = b(start);
        int batches = 0;
        while (next != null) {
            try (ReadScope scope = new ReadScope()) {
                ScanBatch batch = o.scan("T", next, b(stop), caching, scope);
                assertTrue(batch.rows().size() <= caching);
                for (List<Cell> r : batch.rows()) {
                    assertTrue(!r.isEmpty());
                    rows.add(s(r.get(0).row()));
                }
                next = batch.nextStartRow();
            }
            assertTrue(++batches < 1000, "scan does not end");
        }
        return rows;
    }

    @Test
    void scanBatchesCrossRegionsAndSkipDeletedRows() throws IOException {
        try (OnlineRegions o = withTable(conf())) {
            for (int i = 0; i < 100; i++) {
                o.put("T", List.of(put(row(i), "a", 1, "a" + i), put(row(i), "b", 1, "b" + i)));
                if (i == 40) {
                    o.flush("T"); // rows 0..40 in files, the rest in the memstore
                }
            }
            o.put("T", List.of(delete(row(26), "", 9, KeyValue.Type.DELETE_FAMILY),
                delete(row(27), "a", 9, KeyValue.Type.DELETE_COLUMN)));
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                if (i != 26) {
                    expected.add(row(i));
                }
            }
            for (int caching : new int[] {1, 7, 25, 99, 1000}) {
                assertEquals(expected, scanAll(o, "", "", caching), "caching " + caching);
            }
            assertEquals(expected.subList(20, 60), scanAll(o, row(20), row(61), 7)); // row 26 missing: 20..61 minus one
            try (ReadScope scope = new ReadScope()) {
                ScanBatch one = o.scan("T", b(row(27)), b(row(28)), 10, scope);
                assertEquals(List.of("row27:b=b27"), show(one.rows().get(0)));
                assertNull(one.nextStartRow());
                ScanBatch exact = o.scan("T", b(row(90)), new byte[0], 10, scope);
                assertEquals(10, exact.rows().size());
                assertNull(exact.nextStartRow(), "the last rows exactly fill the batch: done");
                ScanBatch partial = o.scan("T", b(row(10)), new byte[0], 3, scope);
                assertArrayEquals(b(row(12) + "\0"), partial.nextStartRow());
                assertEquals(List.of(), o.scan("T", b(row(50)), b(row(50)), 5, scope).rows());
                assertThrows(IllegalArgumentException.class, () -> o.scan("T", new byte[0], new byte[0], 0, scope));
            }
            assertTrue(o.stats().readCounters().scannedRows() > 0);
        }
    }

    @Test
    void incrementsUnderTheIncrementLockAreAtomic() throws Exception {
        try (OnlineRegions o = withTable(conf())) {
            int threads = 4;
            int each = 200;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    fs.add(pool.submit(() -> {
                        for (int i = 0; i < each; i++) {
                            increment(o, "row33", 1);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            try (ReadScope scope = new ReadScope()) {
                List<Cell> got = o.get("T", b("row33"), List.of(b("n")), scope);
                assertEquals(threads * each, Long.parseLong(s(got.get(0).value())));
            }
        }
    }

    /** What the server does for an INCREMENT: lock, get, put through the normal write path, unlock. */
    static long increment(OnlineRegions o, String row, long delta) throws IOException {
        Lock lock = o.incrementLock("T", b(row));
        lock.lock();
        try (ReadScope scope = new ReadScope()) {
            List<Cell> cur = o.get("T", b(row), List.of(b("n")), scope);
            long v = (cur.isEmpty() ? 0 : Long.parseLong(s(cur.get(0).value()))) + delta;
            o.put("T", List.of(KeyValue.create(b(row), FAMILY, b("n"), KeyValue.LATEST_TIMESTAMP, KeyValue.Type.PUT,
                b(Long.toString(v)))), Durability.SKIP_WAL).join();
            return v;
        } finally {
            lock.unlock();
        }
    }

    @Test
    void queryCacheAnswersRepeatedGetsAndWritesInvalidate() throws IOException {
        Configuration conf = conf().set(RegionKeys.QUERY_CACHE_SIZE, "1");
        try (OnlineRegions o = withTable(conf); ReadScope scope = new ReadScope()) {
            o.put("T", List.of(put("row01", "a", 1, "one")));
            o.flush("T");
            assertEquals(List.of("row01:a=one"), show(o.get("T", b("row01"), List.of(), scope)));
            long filesRead = o.stats().readCounters().storeFilesRead();
            assertEquals(List.of("row01:a=one"), show(o.get("T", b("row01"), List.of(), scope)));
            assertEquals(filesRead, o.stats().readCounters().storeFilesRead(), "a hit reads no store file");
            RowQueryCache.Metrics m = o.stats().queryCacheMetrics();
            assertEquals(1, m.hits());
            assertEquals(1, m.misses());
            assertEquals(1, m.entries());
            assertTrue(m.bytes() > 0);
            o.put("T", List.of(put("row01", "a", 2, "two")));
            assertEquals(1, o.stats().queryCacheMetrics().invalidations());
            assertEquals(0, o.stats().queryCacheMetrics().entries());
            assertEquals(List.of("row01:a=two"), show(o.get("T", b("row01"), List.of(), scope)));
            o.put("T", List.of(delete("row01", "a", 3, KeyValue.Type.DELETE_COLUMN)));
            assertEquals(List.of(), o.get("T", b("row01"), List.of(), scope));
            increment(o, "row01", 5);
            assertEquals(List.of("row01:n=5"), show(o.get("T", b("row01"), List.of(), scope)));
            o.dropTable("T");
            assertEquals(0, o.stats().queryCacheMetrics().entries());
        }
        assertThrows(ConfigurationException.class, () -> RowQueryCache.fromConf(conf().set(RegionKeys.QUERY_CACHE_SIZE, "-1")));
        assertThrows(ConfigurationException.class, () -> RowQueryCache.fromConf(conf().set(RegionKeys.QUERY_CACHE_SIZE, "big")));
    }

    @Test
    void queryCacheEvictsLeastRecentlyUsedRows() {
        RowQueryCache c = new RowQueryCache(4 * (RowQueryCache.ENTRY_OVERHEAD + 200));
        for (int i = 0; i < 20; i++) {
            byte[] r = b(row(i));
            c.put("T", r, List.of(), List.of(put(row(i), "q", 1, "v")), c.stamp("T", r));
        }
        RowQueryCache.Metrics m = c.metrics();
        assertTrue(m.bytes() <= m.capacityBytes());
        assertTrue(m.entries() >= 1 && m.entries() < 20, "entries " + m.entries());
        assertEquals(1, c.get("T", b(row(19)), List.of()).size());
        assertNull(c.get("T", b(row(0)), List.of()));
        long stale = c.stamp("T", b("x"));
        c.invalidate("T", b("x"));
        c.put("T", b("x"), List.of(), List.of(put("x", "q", 1, "old")), stale);
        assertNull(c.get("T", b("x"), List.of()), "a result read before a write is not cached");
    }

    /** Index levels of the first region's store files after writing 20000 rows of 100-byte values and a flush. */
    static List<Integer> indexLevelsAfterFlush(Configuration conf) throws IOException {
        try (OnlineRegions o = withTable(conf)) {
            List<KeyValue> cells = new ArrayList<>();
            for (int i = 0; i < 20000; i++) {
                cells.add(put(String.format("row0%05d", i), "q", 1, "v".repeat(100)));
            }
            o.put("T", cells);
            o.flush("T");
            List<Integer> levels = new ArrayList<>();
            for (StoreFileInfo f : o.regions("T").get(0).storeFiles()) {
                try (org.heaplab.core.storefile.StoreFileReader r = org.heaplab.core.storefile.StoreFileReader.open(
                    Path.of(f.path()), org.heaplab.core.cache.BlockCache.NONE)) {
                    levels.add(r.trailer().indexLevels());
                }
            }
            return levels;
        }
    }

    @Test
    void serverStoreFileKeysReachFlushedFiles() throws IOException {
        assertEquals(List.of(1), indexLevelsAfterFlush(conf()), "the default 128 KB root holds every data block");
        Path first = root;
        root = first.resolve("tuned");
        List<Integer> tuned = indexLevelsAfterFlush(conf().set("hfile.index.block.max.size", "256"));
        assertEquals(1, tuned.size());
        assertTrue(tuned.get(0) > 1, "256-byte index blocks need leaf levels, got " + tuned);
    }

    /** Every store file of the table was written with the family's options. */
    static void assertFilesWritten(OnlineRegions o, TableDescriptor d) throws IOException {
        List<StoreFileInfo> files = o.regions(d.name()).get(0).storeFiles();
        assertTrue(!files.isEmpty());
        for (StoreFileInfo f : files) {
            try (org.heaplab.core.storefile.StoreFileReader r = org.heaplab.core.storefile.StoreFileReader.open(
                Path.of(f.path()), org.heaplab.core.cache.BlockCache.NONE)) {
                assertEquals(d.encoding(), r.trailer().encoding(), f.path());
                assertEquals(d.bloom(), r.trailer().bloom(), f.path());
                assertEquals(d.compression(), r.trailer().compression(), f.path());
            }
        }
    }

    @Test
    void familyOptionsPersistAndOldDescriptorsLoadWithDefaults() throws IOException {
        TableDescriptor d = new TableDescriptor("E", FAMILY, Compression.SNAPPY, Durability.ASYNC_WAL,
            DataBlockEncoding.ROW_INDEX_V1, BloomType.NONE, true);
        try (OnlineRegions o = OnlineRegions.open(conf())) {
            o.createTable(d, new byte[0][]);
            o.put("E", List.of(put("r", "q", 1, "v")));
        }
        try (OnlineRegions o = OnlineRegions.open(conf()); ReadScope scope = new ReadScope()) {
            TableDescriptor back = o.describe("E");
            assertEquals(DataBlockEncoding.ROW_INDEX_V1, back.encoding());
            assertEquals(BloomType.NONE, back.bloom());
            assertTrue(back.inMemory());
            assertEquals(Compression.SNAPPY, back.compression());
            assertEquals(List.of("r:q=v"), show(o.get("E", b("r"), List.of(), scope)));
            assertFilesWritten(o, d); // the flush at close
            o.put("E", List.of(put("s", "q", 1, "w")));
            o.flush("E");
            o.majorCompact("E");
            assertEquals(1, o.regions("E").get(0).storeFiles().size());
            assertFilesWritten(o, d); // the compaction's output
        }
        Path dir = root.resolve("old");
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.writeString(dir.resolve(org.heaplab.core.io.StorageConstants.TABLE_DESCRIPTOR_FILE),
            "format=1\nname=O\nfamily=66\ncompression=NONE\n");
        TableDescriptor old = FsLayout.readTableDescriptor(dir);
        assertEquals(DataBlockEncoding.NONE, old.encoding());
        assertEquals(BloomType.ROW, old.bloom());
        assertEquals(false, old.inMemory());
        assertEquals(Durability.USE_DEFAULT, old.durability());
    }
}
