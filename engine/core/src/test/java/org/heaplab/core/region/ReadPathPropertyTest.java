package org.heaplab.core.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCaches;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.cache.CacheLeakDetector;
import org.heaplab.core.cache.ReadPaths;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.cell.KeyValue.Type;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.wal.Durability;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property test of the whole read path: random puts (explicit timestamps, overwrites of the same key),
 * deletes (Delete, DeleteColumn, DeleteFamily, DeleteFamilyVersion), flushes and major compactions,
 * checked after every step by random gets (with and without qualifiers), multi-gets and complete scans
 * (random ranges and caching, following nextStartRow) against a simple in-memory model, for every data
 * block encoding x compression x block cache x read path. After every read its scope is closed and no
 * off-heap cache reference may remain outstanding ({@link CacheLeakDetector}).
 *
 * <p>The model keeps every written cell with its write order, split into "memstore" and "files" like the
 * engine, and resolves a column the obvious way: the newest-timestamp Put (latest written on a tie) that
 * no delete masks. A flush moves the memstore cells to the files; a major compaction replaces the files
 * by their live Puts (markers dropped), as HBase does (so a delete stops masking older Puts written
 * after it once it is compacted away; the model follows that too).
 *
 * <p>Seeded: a failure names the seed, the configuration and the step; replay with
 * {@code mvn ... -Dtest=ReadPathPropertyTest -DargLine=-Dheaplab.seed=N} (-Dheaplab.property.steps=N: longer runs).
 */
@Timeout(600)
class ReadPathPropertyTest {
    private static final byte[] FAMILY = "f".getBytes(StandardCharsets.UTF_8);
    private static final String[] QUALIFIERS = {"", "a", "b", "c"};
    private static final int ROWS = 24;
    private static final int STEPS = Integer.getInteger("heaplab.property.steps", 160);
    private static final long SEED = Long.getLong("heaplab.seed", System.nanoTime());

    @TempDir
    Path root;

    /**
     * The block caches of the matrix: name -> configuration keys. Each also picks a memstore, so the
     * scans' memstore cursors meet every cell storage and index: plain heap cells (1.x) with no cache,
     * on-heap MSLAB with the LRU cache, off-heap MSLAB with a BASIC compacting index that flattens into
     * CellChunkMaps every ~2 KB with the BucketCache (2.x off heap). The flush size stays far above the
     * test's data: only the test's explicit flushes move cells to files, as in the model.
     */
    private static final Map<String, Map<String, String>> CACHES = Map.of(
        "none", Map.of(StorageKeys.BLOCK_CACHE_BYTES, "0"),
        "lru", Map.of(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(256 << 10),
            StorageKeys.MSLAB_ENABLED, "true", StorageKeys.MSLAB_CHUNK_SIZE, "65536",
            StorageKeys.MSLAB_MAX_ALLOCATION, "8192"),
        "bucket", Map.of(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(256 << 10),
            CacheKeys.BUCKET_CACHE_IOENGINE, CacheKeys.IOENGINE_OFFHEAP, CacheKeys.BUCKET_CACHE_SIZE, "32",
            StorageKeys.MSLAB_ENABLED, "true", StorageKeys.MSLAB_CHUNK_SIZE, "65536",
            StorageKeys.MSLAB_MAX_ALLOCATION, "8192", StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, "4",
            StorageKeys.COMPACTING_MEMSTORE_TYPE, "BASIC", StorageKeys.MEMSTORE_FLUSH_SIZE, String.valueOf(4 << 20),
            StorageKeys.INMEMORY_FLUSH_THRESHOLD_FACTOR, "0.0005"));

    static Stream<Arguments> matrix() {
        List<Arguments> l = new ArrayList<>();
        for (DataBlockEncoding e : DataBlockEncoding.values()) {
            for (Compression c : Compression.values()) {
                for (String cache : List.of("none", "lru", "bucket")) {
                    for (String path : List.of("heap-copy", "zero-copy")) {
                        l.add(Arguments.of(e, c, cache, path));
                    }
                }
            }
        }
        return l.stream();
    }

    private record MCell(String row, String q, long ts, Type type, String value, long order) {
        KeyValue kv() {
            return KeyValue.create(b(row), FAMILY, b(q), ts, type, b(value));
        }

        boolean sameKey(MCell o) {
            return row.equals(o.row) && q.equals(o.q) && ts == o.ts && type == o.type;
        }
    }

    /** The model: cells as written, in memstore and files, and the obvious resolution. */
    private static final class Model {
        final List<MCell> memstore = new ArrayList<>();
        List<MCell> files = new ArrayList<>();
        long order;

        void write(List<MCell> cells) {
            for (MCell c : cells) {
                memstore.removeIf(c::sameKey); // the memstore keeps one cell per key: the latest
                memstore.add(c);
            }
        }

        void flush() {
            files.addAll(memstore);
            memstore.clear();
        }

        void compact() {
            List<MCell> kept = new ArrayList<>();
            for (String row : rows(files)) {
                kept.addAll(resolve(row, files).values());
            }
            files = kept;
        }

        static List<String> rows(List<MCell> cells) {
            return cells.stream().map(MCell::row).distinct().sorted().toList();
        }

        /** qualifier -> the live Put of that column in {@code cells}. */
        static TreeMap<String, MCell> resolve(String row, List<MCell> cells) {
            List<MCell> r = cells.stream().filter(c -> c.row.equals(row)).toList();
            TreeMap<String, MCell> out = new TreeMap<>();
            for (String q : QUALIFIERS) {
                List<MCell> puts = new ArrayList<>(r.stream().filter(c -> c.q.equals(q) && c.type == Type.PUT).toList());
                puts.sort(Comparator.comparingLong(MCell::ts).thenComparingLong(MCell::order).reversed());
                for (MCell p : puts) {
                    boolean masked = r.stream().anyMatch(d ->
                        (d.type == Type.DELETE_FAMILY && d.ts >= p.ts)
                            || (d.type == Type.DELETE_FAMILY_VERSION && d.ts == p.ts)
                            || (d.type == Type.DELETE_COLUMN && d.q.equals(q) && d.ts >= p.ts)
                            || (d.type == Type.DELETE && d.q.equals(q) && d.ts == p.ts));
                    if (!masked) {
                        out.put(q, p);
                        break;
                    }
                }
            }
            return out;
        }

        List<MCell> all() {
            List<MCell> l = new ArrayList<>(files);
            l.addAll(memstore);
            return l;
        }

        List<String> get(String row, List<String> qualifiers) {
            List<String> l = new ArrayList<>();
            for (MCell c : resolve(row, all()).values()) {
                if (qualifiers.isEmpty() || qualifiers.contains(c.q)) {
                    l.add(show(c.row, c.q, c.value));
                }
            }
            return l;
        }

        List<List<String>> scan(String start, String stop) {
            List<List<String>> rows = new ArrayList<>();
            for (String row : rows(all())) {
                if (row.compareTo(start) >= 0 && (stop.isEmpty() || row.compareTo(stop) < 0)) {
                    List<String> r = get(row, List.of());
                    if (!r.isEmpty()) {
                        rows.add(r);
                    }
                }
            }
            return rows;
        }
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String show(String row, String q, String value) {
        return row + "/" + q + "=" + value;
    }

    static List<String> show(List<Cell> cells) {
        List<String> l = new ArrayList<>();
        for (Cell c : cells) {
            l.add(show(new String(c.row(), StandardCharsets.UTF_8), new String(c.qualifier(), StandardCharsets.UTF_8),
                new String(c.value(), StandardCharsets.UTF_8)));
        }
        return l;
    }

    static String row(int i) {
        return String.format("r%02d", i);
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @MethodSource("matrix")
    void readsMatchTheModel(DataBlockEncoding encoding, Compression compression, String cacheName, String readPath)
        throws IOException {
        long seed = SEED ^ (31L * encoding.ordinal() + 7L * compression.ordinal() + cacheName.hashCode() + readPath.hashCode());
        String config = encoding + " " + compression + " cache=" + cacheName + " " + readPath + " (seed " + SEED + ")";
        Path dir = root.resolve("data");
        Files.createDirectories(dir);
        Configuration conf = new Configuration().set(StorageKeys.ROOT_DIR, "file://" + dir)
            .set(ReadPaths.KEY, readPath);
        CACHES.get(cacheName).forEach(conf::set);
        Random rnd = new Random(seed);
        BlockCache cache = BlockCaches.fromConf(conf);
        Model model = new Model();
        int step = 0;
        try (OnlineRegions o = OnlineRegions.open(conf, cache)) {
            o.createTable(new TableDescriptor("P", FAMILY, compression, Durability.SKIP_WAL, encoding,
                rnd.nextBoolean() ? BloomType.ROW : BloomType.NONE, rnd.nextBoolean()), new byte[][] {b(row(ROWS / 2))});
            long flattened = 0;
            for (step = 0; step < STEPS; step++) {
                mutate(o, model, rnd);
                check(o, model, rnd, cache, config + " step " + step);
                flattened = Math.max(flattened, o.stats().memstoreStats().flattenedSegments());
            }
            // a burst of new versions (timestamps above the random ones), enough for the BASIC memstore to flatten
            List<MCell> burst = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                burst.add(new MCell(row(i % ROWS), "b", 13 + i / ROWS, Type.PUT, "burst" + i, model.order++));
            }
            o.put("P", burst.stream().map(MCell::kv).toList(), Durability.SKIP_WAL).join();
            model.write(burst);
            flattened = Math.max(flattened, o.stats().memstoreStats().flattenedSegments());
            check(o, model, rnd, cache, config + " after the burst");
            if (cacheName.equals("bucket")) {
                assertTrue(flattened > 0, config + ": the BASIC memstore never flattened a segment");
            }
            // and once more after a final flush and compaction
            o.flush("P");
            model.flush();
            check(o, model, rnd, cache, config + " after flush");
            o.majorCompact("P");
            model.compact();
            check(o, model, rnd, cache, config + " after compaction");
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(config + " step " + step + ": " + e, e);
        }
        CacheLeakDetector.assertNoLeaks(cache);
        if (cacheName.equals("bucket")) {
            long taken = CacheLeakDetector.of(cache).stream().mapToLong(CacheLeakDetector::taken).sum();
            assertTrue(taken > 0, config + ": no off-heap block was ever read: the leak check proved nothing");
        }
    }

    private static void mutate(OnlineRegions o, Model model, Random rnd) throws IOException {
        int op = rnd.nextInt(100);
        if (op < 8) {
            o.flush("P");
            model.flush();
            return;
        }
        if (op < 11) {
            o.majorCompact("P");
            model.compact();
            return;
        }
        String row = row(rnd.nextInt(ROWS));
        List<MCell> cells = new ArrayList<>();
        int n = 1 + rnd.nextInt(3);
        for (int i = 0; i < n; i++) {
            String q = QUALIFIERS[rnd.nextInt(QUALIFIERS.length)];
            long ts = 1 + rnd.nextInt(12);
            int kind = rnd.nextInt(100);
            Type type;
            if (op < 80 || kind < 40) {
                type = Type.PUT;
            } else if (kind < 60) {
                type = Type.DELETE;
            } else if (kind < 80) {
                type = Type.DELETE_COLUMN;
            } else if (kind < 92) {
                type = Type.DELETE_FAMILY;
                q = "";
            } else {
                type = Type.DELETE_FAMILY_VERSION;
                q = "";
            }
            String value = type == Type.PUT ? "v" + model.order + "-" + rnd.nextInt(1000) : "";
            cells.add(new MCell(row, q, ts, type, value, model.order++));
        }
        List<KeyValue> kvs = new ArrayList<>();
        for (MCell c : cells) {
            kvs.add(c.kv());
        }
        o.put("P", kvs, Durability.SKIP_WAL).join();
        model.write(cells);
    }

    private static void check(OnlineRegions o, Model model, Random rnd, BlockCache cache, String where)
        throws IOException {
        // a few gets, one with a qualifier filter
        for (int i = 0; i < 3; i++) {
            String row = row(rnd.nextInt(ROWS));
            List<String> qs = i == 2 ? List.of(QUALIFIERS[rnd.nextInt(QUALIFIERS.length)], "c") : List.of();
            List<byte[]> qb = qs.stream().map(ReadPathPropertyTest::b).toList();
            try (ReadScope scope = new ReadScope()) {
                assertEquals(model.get(row, qs), show(o.get("P", b(row), qb, scope)), where + ": get " + row + " " + qs);
            }
            assertEquals(0, CacheLeakDetector.outstanding(cache), where + ": get left references");
        }
        // a multi-get across both regions
        List<String> rows = List.of(row(rnd.nextInt(ROWS)), row(rnd.nextInt(ROWS)), row(ROWS - 1));
        try (ReadScope scope = new ReadScope()) {
            List<List<Cell>> got = o.multiGet("P", rows.stream().map(ReadPathPropertyTest::b).toList(), scope);
            for (int i = 0; i < rows.size(); i++) {
                assertEquals(model.get(rows.get(i), List.of()), show(got.get(i)), where + ": multiGet " + rows.get(i));
            }
        }
        assertEquals(0, CacheLeakDetector.outstanding(cache), where + ": multiGet left references");
        // a complete scan of a random range, in batches
        int a = rnd.nextInt(ROWS + 1);
        int z = rnd.nextInt(ROWS + 2);
        String start = a == ROWS ? "" : row(a);
        String stop = z >= ROWS ? "" : row(z);
        int caching = 1 + rnd.nextInt(8);
        List<List<String>> scanned = new ArrayList<>();
        byte[] next = b(start);
        for (int batches = 0; next != null; batches++) {
            if (batches > 2 * ROWS + 2) {
                fail(where + ": scan does not end");
            }
            try (ReadScope scope = new ReadScope()) {
                ScanBatch batch = o.scan("P", next, b(stop), caching, scope);
                if (batch.rows().size() > caching) {
                    fail(where + ": batch of " + batch.rows().size() + " rows with caching " + caching);
                }
                for (List<Cell> r : batch.rows()) {
                    scanned.add(show(r));
                }
                next = batch.nextStartRow();
            }
            assertEquals(0, CacheLeakDetector.outstanding(cache), where + ": scan left references");
        }
        assertEquals(model.scan(start, stop), scanned, where + ": scan [" + start + ", " + stop + ") caching " + caching);
    }
}
