package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class RegionTest {
    @TempDir
    Path root;

    /**
     * Writers put both columns of a row in one batch with the same value while flushes and compactions
     * run; readers must never see the two columns of a row disagree (row atomicity) and, at the end,
     * every row holds its last written value.
     */
    @Test
    void putsAndGetsStayRowAtomicWhileFlushingAndCompacting() throws Exception {
        Configuration conf = new Configuration().set(StorageKeys.ROOT_DIR, root.toString())
            .set(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(1 << 20));
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            o.createTable(new TableDescriptor("T", OnlineRegionsTest.FAMILY, Compression.NONE), new byte[][] {b("m")});
            int writers = 2;
            int rounds = 300;
            String[] rows = {"a1", "a2", "n1", "n2", "z9"};
            AtomicReference<Throwable> error = new AtomicReference<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            CountDownLatch writersDone = new CountDownLatch(writers);
            CountDownLatch othersDone = new CountDownLatch(2);
            for (int w = 0; w < writers; w++) {
                int id = w;
                new Thread(() -> {
                    try {
                        for (int i = 1; i <= rounds; i++) {
                            String row = rows[(i + id) % rows.length];
                            String v = id + ":" + i;
                            o.put("T", List.of(OnlineRegionsTest.put(row, "a", i, v), OnlineRegionsTest.put(row, "b", i, v)));
                        }
                    } catch (Throwable e) {
                        error.compareAndSet(null, e);
                    } finally {
                        writersDone.countDown();
                    }
                }).start();
            }
            new Thread(() -> {
                try {
                    while (writing.get()) {
                        for (String row : rows) {
                            List<KeyValue> got = OwnedRows.get(o, "T", b(row));
                            if (got.size() == 2 && !java.util.Arrays.equals(got.get(0).value(), got.get(1).value())) {
                                throw new AssertionError("torn row " + row + ": " + got);
                            }
                        }
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                } finally {
                    othersDone.countDown();
                }
            }).start();
            new Thread(() -> {
                try {
                    int n = 0;
                    while (writing.get()) {
                        o.flush("T");
                        if (++n % 3 == 0) {
                            o.majorCompact("T");
                        }
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                } finally {
                    othersDone.countDown();
                }
            }).start();
            writersDone.await();
            writing.set(false);
            othersDone.await();
            assertNull(error.get());
            for (String row : rows) {
                List<KeyValue> got = OwnedRows.get(o, "T", b(row));
                assertEquals(2, got.size(), row);
                assertEquals(got.get(0).timestamp(), got.get(1).timestamp());
                assertEquals(new String(got.get(0).value()), new String(got.get(1).value()));
            }
            // the newest timestamp written to a row wins: the highest round either writer used for it
            for (int r = 0; r < rows.length; r++) {
                long max = 0;
                for (int w = 0; w < writers; w++) {
                    for (int i = 1; i <= rounds; i++) {
                        if ((i + w) % rows.length == r) {
                            max = Math.max(max, i);
                        }
                    }
                }
                assertEquals(max, OwnedRows.get(o, "T", b(rows[r])).get(0).timestamp(), rows[r]);
            }
        }
    }
}
