package org.heaplab.core.storefile;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.storefile.StoreFileWriterTest.cells;
import static org.heaplab.core.storefile.StoreFileWriterTest.copies;
import static org.heaplab.core.storefile.StoreFileWriterTest.rowName;
import static org.heaplab.core.storefile.StoreFileWriterTest.rowOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCaches;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.cache.CacheLeakDetector;
import org.heaplab.core.cache.CacheMetrics;
import org.heaplab.core.cache.CombinedBlockCache;
import org.heaplab.core.cache.HeapCopyReadPath;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cache.ZeroCopyReadPath;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellCursor;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store file read through the server's real caches (BlockCaches.fromConf with the off-heap
 * BucketCache): index and bloom blocks land in the on-heap L1, data blocks in the off-heap L2; the
 * zero-copy path serves views of bucket memory; every reference is given back once the scope closes.
 */
class StoreFileWithRealCachesTest {
    @TempDir
    Path dir;

    static Stream<Arguments> setups() {
        List<Arguments> all = new ArrayList<>();
        for (DataBlockEncoding e : DataBlockEncoding.values()) {
            all.add(Arguments.of(e, new ZeroCopyReadPath()));
            all.add(Arguments.of(e, new HeapCopyReadPath()));
        }
        return all.stream();
    }

    @ParameterizedTest
    @MethodSource("setups")
    void combinedCacheServesExactCellsAndGetsEveryReferenceBack(DataBlockEncoding e, ReadPath path) throws Exception {
        List<KeyValue> cells = cells(600);
        Path file = dir.resolve("1.sf");
        // 4 KB data blocks and 512-byte index blocks: ~200 data blocks under a 3-level index
        StoreFileWriterTest.write(file, cells, StoreFileWriterTest.options(e, Compression.SNAPPY),
            new StoreFileTuning(4096, 512, 0.01, 4096));
        Configuration conf = new Configuration().set(CacheKeys.BUCKET_CACHE_IOENGINE, CacheKeys.IOENGINE_OFFHEAP)
            .set(CacheKeys.BUCKET_CACHE_SIZE, "32").set(CacheKeys.BLOCK_CACHE_BYTES, String.valueOf(8 << 20));
        BlockCache cache = BlockCaches.fromConf(conf);
        try (cache; StoreFileReader r = StoreFileReader.open(file, cache, path, false)) {
            assertTrue(r.index().levels() >= 2, "levels " + r.index().levels());
            CombinedBlockCache combined = assertInstanceOf(CombinedBlockCache.class, cache);
            for (int pass = 0; pass < 2; pass++) {
                for (int row = 0; row < 600; row += 7) {
                    String name = rowName(row);
                    try (ReadScope scope = new ReadScope()) {
                        assertTrue(r.mightContainRow(b(name)));
                        List<Cell> got = new ArrayList<>();
                        r.getRow(b(name), scope, got);
                        assertEquals(rowOf(cells, name), copies(got), name);
                        if (pass == 1 && e != DataBlockEncoding.DIFF) {
                            Class<?> shape = path instanceof ZeroCopyReadPath ? ByteBufferKeyValue.class : KeyValue.class;
                            got.forEach(c -> assertInstanceOf(shape, c, path.name() + " over a bucket slot"));
                        }
                    }
                    CacheLeakDetector.assertNoLeaks(cache);
                }
                assertTrue(combined.l2().awaitWrites(10_000), "bucket writers drained");
            }
            try (ReadScope scope = new ReadScope()) {
                List<Cell> all = new ArrayList<>();
                CellCursor c = r.cursor(b(rowName(250)), scope);
                for (Cell cell = c.peek(); cell != null; c.advance(), cell = c.peek()) {
                    all.add(cell);
                }
                assertEquals(cells.subList(250 * 6, cells.size()), copies(all));
            }
            CacheLeakDetector.assertNoLeaks(cache);

            List<CacheMetrics> m = cache.metrics();
            CacheMetrics l1 = m.get(0);
            CacheMetrics l2 = m.get(1);
            assertTrue(l1.byType().get(BlockType.LEAF_INDEX).hits() > 0, "leaf index blocks from L1: " + l1);
            assertTrue(l1.byType().get(BlockType.BLOOM).hits() > 0, "bloom chunks from L1: " + l1);
            assertTrue(l2.byType().get(BlockType.DATA).hits() > 0, "data blocks from L2: " + l2);
            assertEquals(0, l1.byType().get(BlockType.DATA).hits() + l1.byType().get(BlockType.DATA).misses(),
                "no data block asked of L1");
        }
    }
}
