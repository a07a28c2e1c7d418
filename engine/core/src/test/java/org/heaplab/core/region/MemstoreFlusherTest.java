package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.heaplab.core.memstore.Memstore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class MemstoreFlusherTest {
    @TempDir
    Path root;

    private static final String VALUE = "x".repeat(200);

    private static int storeFiles(OnlineRegions o) throws Exception {
        return o.regions("T").stream().mapToInt(r -> r.storeFiles().size()).sum();
    }

    @Test
    void aRegionOverTheFlushSizeIsFlushedInTheBackground() throws Exception {
        Configuration conf = new Configuration().set(StorageKeys.ROOT_DIR, root.toString())
            .set(StorageKeys.MEMSTORE_FLUSH_SIZE, "20000");
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            o.createTable(new TableDescriptor("T", OnlineRegionsTest.FAMILY, Compression.NONE), new byte[0][]);
            int i = 0;
            while (o.regions("T").get(0).memstoreBytes() < 20000) {
                o.put("T", List.of(OnlineRegionsTest.put("r" + i++, "q", 1, VALUE)));
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (storeFiles(o) == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // waits on the flusher thread's result, no sleep
            }
            assertTrue(storeFiles(o) >= 1, "the flusher wrote a store file");
            for (int j = 0; j < i; j++) {
                assertEquals(1, OwnedRows.get(o, "T", b("r" + j)).size());
            }
        }
    }

    @Test
    void writersBlockedByTheGlobalLimitResumeAfterFlushesAndLoseNothing() throws Exception {
        long limit = 100 * (VALUE.length() + 40 + Memstore.CELL_HEAP_OVERHEAD); // about 100 cells
        Configuration conf = new Configuration().set(StorageKeys.ROOT_DIR, root.toString())
            .set(StorageKeys.GLOBAL_MEMSTORE_BYTES, String.valueOf(limit));
        int threads = 4;
        int perThread = 300;
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            o.createTable(new TableDescriptor("T", OnlineRegionsTest.FAMILY, Compression.SNAPPY),
                new byte[][] {b("t2")});
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(threads);
            AtomicReference<Throwable> error = new AtomicReference<>();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread w = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            o.put("T", List.of(OnlineRegionsTest.put("t" + id + "-" + i, "q", 1, VALUE)));
                        }
                    } catch (Throwable e) {
                        error.compareAndSet(null, e);
                    } finally {
                        done.countDown();
                    }
                });
                w.start();
                writers.add(w);
            }
            start.countDown();
            done.await();
            assertNull(error.get());
            // 1200 cells are ~12x the limit: only flushes forced by blocked writers can have made room
            assertTrue(storeFiles(o) >= 5, "global pressure forced flushes: " + storeFiles(o));
            assertTrue(o.stats().globalMemstoreSize() < limit + threads * (VALUE.length() + 200L));
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    List<KeyValue> got = OwnedRows.get(o, "T", b("t" + t + "-" + i));
                    assertEquals(1, got.size(), "t" + t + "-" + i);
                }
            }
        }
    }
}
