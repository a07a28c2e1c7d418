package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.heaplab.core.memstore.Memstore;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The whole store (memstore, snapshot, flush, store files) under each memstore variant, against a model. */
@Timeout(120)
class MemstoreVariantsTest {
    @TempDir
    Path root;

    private Configuration conf(boolean mslab, int offheapMb, String type) {
        return new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root)
            .set(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(4 << 20))
            .set(StorageKeys.MEMSTORE_FLUSH_SIZE, String.valueOf(1 << 20))
            .set(StorageKeys.MSLAB_ENABLED, String.valueOf(mslab))
            .set(StorageKeys.MSLAB_CHUNK_SIZE, "65536").set(StorageKeys.MSLAB_MAX_ALLOCATION, "8192")
            .set(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, String.valueOf(offheapMb))
            .set(StorageKeys.COMPACTING_MEMSTORE_TYPE, type)
            .set(StorageKeys.INMEMORY_FLUSH_THRESHOLD_FACTOR, "0.05"); // flatten every ~50 KB
    }

    @ParameterizedTest(name = "mslab={0} offheapMb={1} type={2}")
    @CsvSource({"false,0,NONE", "true,0,NONE", "true,1,NONE", "true,0,BASIC", "true,1,BASIC"})
    void putsGetsAndFlushesMatchAModelAndEveryChunkComesBack(boolean mslab, int offheapMb, String type) throws IOException {
        Random rnd = new Random(5);
        Map<String, String> model = new HashMap<>(); // "row/col" -> newest value
        long ts = 1;
        Memstore.MemstoreStats stats;
        try (OnlineRegions o = OnlineRegions.open(conf(mslab, offheapMb, type))) {
            o.createTable(new TableDescriptor("T", OnlineRegionsTest.FAMILY, Compression.NONE), OnlineRegionsTest.SPLITS);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 4000; i++) {
                    String row = OnlineRegionsTest.row(rnd.nextInt(100));
                    String col = "c" + rnd.nextInt(5);
                    String value = "v" + round + "-" + i + "-" + "x".repeat(rnd.nextInt(100));
                    o.put("T", List.of(OnlineRegionsTest.put(row, col, ts++, value)));
                    model.put(row + "/" + col, value);
                    if (i % 50 == 0) {
                        assertRow(o, model, OnlineRegionsTest.row(rnd.nextInt(100)));
                    }
                }
                stats = o.stats().memstoreStats();
                assertEquals(type.equals("BASIC") ? "CHUNK_MAP" : "CSLM", stats.index());
                assertTrue(stats.cells() > 0 && stats.dataBytes() > 0, stats.toString());
                if (type.equals("BASIC")) {
                    assertTrue(stats.flattenedSegments() > 0, stats.toString());
                }
                if (mslab) {
                    assertEquals(offheapMb > 0, stats.chunks().offheapInUse() > 0, stats.toString());
                }
                o.flush("T");
                for (int r = 0; r < 100; r++) {
                    assertRow(o, model, OnlineRegionsTest.row(r));
                }
            }
            assertEquals(0, o.stats().memstoreStats().cells());
            assertEquals(0, o.stats().memstoreStats().flattenedSegments());
            assertEquals(0, o.stats().memstoreStats().chunks().offheapInUse() + o.stats().memstoreStats().chunks().onheapInUse(),
                "every flushed snapshot gave its chunks back");
        }
        try (OnlineRegions o = OnlineRegions.open(conf(mslab, offheapMb, type))) {
            for (int r = 0; r < 100; r++) {
                assertRow(o, model, OnlineRegionsTest.row(r)); // from the store files the flushes wrote
            }
        }
    }

    private static void assertRow(OnlineRegions o, Map<String, String> model, String row) throws IOException {
        List<KeyValue> got = OwnedRows.get(o, "T", b(row));
        Map<String, String> expected = new HashMap<>();
        model.forEach((k, v) -> {
            if (k.startsWith(row + "/")) {
                expected.put(k.substring(row.length() + 1), v);
            }
        });
        Map<String, String> actual = new HashMap<>();
        for (KeyValue kv : got) {
            actual.put(new String(kv.qualifier()), new String(kv.value()));
        }
        assertEquals(expected, actual, row);
    }
}
