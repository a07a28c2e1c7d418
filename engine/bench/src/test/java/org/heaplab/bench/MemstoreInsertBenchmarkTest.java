package org.heaplab.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.memstore.ChunkPool;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.memstore.MslabCellStorage;
import org.heaplab.core.memstore.PlainCellStorage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The benchmark's op and flush cycle, driven by hand (no JMH, no timing). */
class MemstoreInsertBenchmarkTest {
    @ParameterizedTest
    @EnumSource(MemstoreVariant.class)
    void everyVariantIsBuiltThroughTheStartUpKeysAndKeepsItsOwnCopy(MemstoreVariant variant) {
        MemstoreInsertBenchmark b = benchmark(variant, "heap", 50);
        b.setUp();
        b.insert();
        Memstore m = b.memstore();
        boolean mslab = variant.siteKeys().get(StorageKeys.MSLAB_ENABLED).equals("true");
        Class<?> storage = mslab ? MslabCellStorage.class : PlainCellStorage.class;
        assertTrue(storage.isInstance(m.storage()), variant + ": " + m.storage());
        KeyValue stored = m.cells().iterator().next();
        List<KeyValue> row = new ArrayList<>();
        m.getRow(stored.row(), row);
        assertEquals(1, row.size());
        assertEquals(200, row.get(0).valueLength());
        KeyValue first = (KeyValue) PeCells.requestViews(42, 50, 200, false)[0];
        assertNotSame(first.getBuffer(), stored.getBuffer(), "the memstore copied the request cell");
        assertArrayEquals(first.value(), stored.value());
        b.tearDown();
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "direct"})
    void aFullMemstoreIsReplacedByAFreshOne(String request) {
        for (MemstoreVariant variant : MemstoreVariant.values()) {
            MemstoreInsertBenchmark b = benchmark(variant, request, 50);
            b.setUp();
            for (int i = 0; i < 50; i++) {
                b.insert();
            }
            Memstore full = b.memstore();
            assertEquals(50, full.cellCount(), variant + ": 50 distinct random rows");
            b.insert();
            assertNotSame(full, b.memstore(), variant + ": flushed after cellsPerMemstore inserts");
            assertEquals(1, b.memstore().cellCount());
            b.tearDown();
        }
    }

    @ParameterizedTest
    @EnumSource(MemstoreVariant.class)
    void theVariantsKeysTakeEffect(MemstoreVariant variant) {
        MemstoreInsertBenchmark b = benchmark(variant, "heap", 10_000);
        b.setUp();
        for (int i = 0; i < 10_000; i++) {
            b.insert();
        }
        boolean offheap = variant.siteKeys().containsKey(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE);
        boolean basic = "BASIC".equals(variant.siteKeys().get(StorageKeys.COMPACTING_MEMSTORE_TYPE));
        ChunkPool.ChunkStats chunks = b.memstores().stats().chunks();
        assertEquals(offheap, chunks.offheapInUse() > 0, variant + ": direct chunks " + chunks);
        // 10 000 cells are about 3 MB of heap size, past the default in-memory flush threshold (1.9 MB)
        assertEquals(basic, b.memstore().flattenedSegments() > 0, variant + ": flattened CellChunkMap segments");
        assertEquals(basic ? "CHUNK_MAP" : "CSLM", b.memstores().stats().index());
        b.tearDown();
    }

    private static MemstoreInsertBenchmark benchmark(MemstoreVariant variant, String request, int cellsPerMemstore) {
        MemstoreInsertBenchmark b = new MemstoreInsertBenchmark();
        b.variant = variant;
        b.request = request;
        b.valueSize = 200;
        b.cellsPerMemstore = cellsPerMemstore;
        return b;
    }
}
