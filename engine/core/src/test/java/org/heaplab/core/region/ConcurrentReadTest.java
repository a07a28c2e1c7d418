package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.TestKv.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.heaplab.core.wal.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gets and scans while a writer rewrites rows and flushes and compactions replace the memstore and
 * the store files under them: no read fails, every row is seen whole (both columns of one put, never
 * half of one: row atomicity), and a row once written never disappears.
 */
@Timeout(120)
class ConcurrentReadTest {
    @TempDir
    Path root;

    static KeyValue put(String row, String q, String value) {
        return KeyValue.create(b(row), b("f"), b(q), KeyValue.LATEST_TIMESTAMP, KeyValue.Type.PUT, b(value));
    }

    @Test
    void readsSeeWholeRowsWhileFlushesAndCompactionsRun() throws Exception {
        Configuration conf = new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root)
            .set(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(1 << 20));
        int rows = 40;
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            o.createTable(new TableDescriptor("C", b("f"), Compression.NONE), new byte[][] {b("r20")});
            for (int i = 0; i < rows; i++) {
                o.put("C", List.of(put(row(i), "a", "0"), put(row(i), "b", "0")));
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicIntegerArray progress = new AtomicIntegerArray(4); // rounds done: puts, flushes, gets, full scans
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Integer>> work = new ArrayList<>();
                work.add(pool.submit(() -> {
                    int n = 0;
                    while (!stop.get()) {
                        String v = String.valueOf(++n);
                        String r = row(n % rows);
                        o.put("C", List.of(put(r, "a", v), put(r, "b", v)), Durability.SKIP_WAL).join();
                        progress.incrementAndGet(0);
                    }
                    return n;
                }));
                work.add(pool.submit(() -> {
                    int n = 0;
                    while (!stop.get()) {
                        o.flush("C");
                        if (++n % 3 == 0) {
                            o.majorCompact("C");
                        }
                        progress.incrementAndGet(1);
                    }
                    return n;
                }));
                work.add(pool.submit(() -> {
                    int n = 0;
                    while (!stop.get()) {
                        try (ReadScope scope = new ReadScope()) {
                            assertWhole(o.get("C", b(row(n % rows)), List.of(), scope));
                        }
                        n++;
                        progress.incrementAndGet(2);
                    }
                    return n;
                }));
                work.add(pool.submit(() -> {
                    int scans = 0;
                    while (!stop.get()) {
                        int seen = 0;
                        byte[] next = new byte[0];
                        while (next != null) {
                            try (ReadScope scope = new ReadScope()) {
                                ScanBatch batch = o.scan("C", next, new byte[0], 7, scope);
                                for (List<Cell> r : batch.rows()) {
                                    assertWhole(r);
                                    seen++;
                                }
                                next = batch.nextStartRow();
                            }
                        }
                        assertEquals(rows, seen, "every row, once each");
                        scans++;
                        progress.incrementAndGet(3);
                    }
                    return scans;
                }));
                awaitRounds(progress, new int[] {2000, 60, 2000, 300}, work);
                stop.set(true);
                for (Future<Integer> f : work) {
                    assertTrue(f.get() > 0);
                }
            } finally {
                stop.set(true);
                pool.shutdownNow();
            }
        }
    }

    /**
     * Waits until every worker has done its rounds while the others ran (rather than for a fixed time, which
     * a slow machine would fill with fewer overlapping flushes and scans), or until one worker has failed.
     */
    private static void awaitRounds(AtomicIntegerArray progress, int[] rounds, List<Future<Integer>> work)
        throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (work.stream().noneMatch(Future::isDone)) { // a failed worker: its exception comes out of get()
            boolean done = true;
            for (int i = 0; i < rounds.length; i++) {
                done &= progress.get(i) >= rounds[i];
            }
            if (done) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "rounds done in 60 s: " + progress + ", wanted " + Arrays.toString(rounds));
            Thread.sleep(10);
        }
    }

    static String row(int i) {
        return String.format("r%02d", i);
    }

    static void assertWhole(List<Cell> cells) {
        assertEquals(2, cells.size(), "both columns");
        assertEquals(s(cells.get(0).value()), s(cells.get(1).value()), "one put's columns: " + s(cells.get(0).row()));
    }
}
