package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCaches;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.cache.CacheLeakDetector;
import org.heaplab.core.cache.ReadPaths;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cache.ZeroCopyReadPath;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zero-copy read path through the region layer: gets and scans served from an off-heap BucketCache
 * hold block references in their ReadScope exactly until it is closed, so the leak check the property
 * test relies on does fail when a scope is left open (a deliberate leak), and passes once it is closed.
 */
@Timeout(60)
class ReadScopeLeakTest {
    @TempDir
    Path root;

    @Test
    void anOpenScopeIsALeakAndClosingItReleasesEveryReference() throws Exception {
        Configuration conf = new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root)
            .set(ReadPaths.KEY, ZeroCopyReadPath.NAME)
            .set(CacheKeys.BUCKET_CACHE_IOENGINE, CacheKeys.IOENGINE_OFFHEAP).set(CacheKeys.BUCKET_CACHE_SIZE, "32")
            .set(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(1 << 20));
        BlockCache cache = BlockCaches.fromConf(conf);
        try (OnlineRegions o = OnlineRegions.open(conf, cache)) {
            o.createTable(new TableDescriptor("L", b("f"), Compression.NONE), new byte[0][]);
            for (int i = 0; i < 50; i++) {
                o.put("L", List.of(KeyValue.create(b(String.format("r%02d", i)), b("f"), b("q"), 1, KeyValue.Type.PUT,
                    b("v" + i))));
            }
            o.flush("L");
            // the BucketCache's writer threads cache the block after the first miss: read until it is served from there
            for (int i = 0; i < 10_000 && CacheLeakDetector.of(cache).stream().mapToLong(CacheLeakDetector::taken).sum() == 0; i++) {
                try (ReadScope scope = new ReadScope()) {
                    o.get("L", b("r07"), List.of(), scope);
                }
                Thread.sleep(1);
            }
            CacheLeakDetector.assertNoLeaks(cache);

            ReadScope leaked = new ReadScope();
            List<Cell> cells = o.get("L", b("r07"), List.of(), leaked);
            assertEquals("v7", new String(cells.get(0).value(), java.nio.charset.StandardCharsets.UTF_8));
            assertTrue(leaked.heldBlocks() > 0, "zero-copy: the scope holds the block the cell points into");
            assertThrows(IllegalStateException.class, () -> CacheLeakDetector.assertNoLeaks(cache));
            leaked.close();
            CacheLeakDetector.assertNoLeaks(cache);

            ReadScope scan = new ReadScope();
            ScanBatch batch = o.scan("L", new byte[0], new byte[0], 100, scan);
            assertEquals(50, batch.rows().size());
            assertTrue(CacheLeakDetector.outstanding(cache) > 0, "the scan's cells point into held blocks");
            scan.close();
            CacheLeakDetector.assertNoLeaks(cache);
        }
    }
}
