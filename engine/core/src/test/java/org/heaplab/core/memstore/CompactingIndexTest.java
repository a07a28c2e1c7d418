package org.heaplab.core.memstore;

import static org.heaplab.core.memstore.MslabCellStorageTest.pool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(120)
class CompactingIndexTest {
    private static final byte[] F = "f".getBytes(StandardCharsets.US_ASCII);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** A random cell over few rows, columns and timestamps, so keys repeat (overwrites) often. */
    private static KeyValue randomCell(Random rnd, int n) {
        KeyValue.Type type = rnd.nextInt(10) == 0 ? KeyValue.Type.DELETE_COLUMN : KeyValue.Type.PUT;
        int valueSize = rnd.nextInt(20) == 0 ? 700 : rnd.nextInt(60); // some above the max allocation: jumbo
        return KeyValue.create(b("row" + rnd.nextInt(200)), F, b("q" + rnd.nextInt(4)), 1 + rnd.nextInt(3), type,
            b(("v" + n + "-").repeat(valueSize / 4 + 1)));
    }

    /** Half of the writes arrive as views over a direct "request buffer" that is overwritten afterwards. */
    private static void add(Memstore m, KeyValue kv, Random rnd, ByteBuffer request) {
        if (rnd.nextBoolean()) {
            request.clear();
            request.put(0, kv.getBuffer(), 0, kv.getLength());
            m.add(new ByteBufferKeyValue(request, 0, kv.getLength()));
            request.put(0, new byte[kv.getLength()]); // reused by the next request
        } else {
            m.add(kv);
        }
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void randomPutsOverwritesAndGetsMatchATreeMapAcrossFlatteningsAndFlushes(boolean offheap) {
        ChunkPool pool = pool(offheap, 4096, 64);
        Random rnd = new Random(offheap ? 11 : 7);
        ByteBuffer request = ByteBuffer.allocateDirect(4096);
        int flattenings = 0;
        for (int flush = 0; flush < 4; flush++) {
            Memstore m = Memstore.compacting(new MslabCellStorage(pool, 512), 3000);
            TreeMap<KeyValue, KeyValue> model = new TreeMap<>(CellComparator.INSTANCE); // same key replaces
            for (int i = 0; i < 3000; i++) {
                KeyValue kv = randomCell(rnd, i);
                add(m, kv, rnd, request);
                model.put(kv, kv);
                if (i % 7 == 0) {
                    byte[] row = b("row" + rnd.nextInt(200));
                    List<KeyValue> got = new ArrayList<>();
                    m.getRow(row, got);
                    List<KeyValue> expected = new ArrayList<>(model.subMap(org.heaplab.core.cell.Cells.firstOnRow(row), true,
                        org.heaplab.core.cell.Cells.firstOnRow(b(new String(row, StandardCharsets.US_ASCII) + "\0")), true).values());
                    assertEquals(expected, got, "row " + new String(row, StandardCharsets.US_ASCII) + " after " + i + " writes");
                }
            }
            assertTrue(m.flattenedSegments() > 3, "flattened " + m.flattenedSegments() + " times");
            flattenings += m.flattenedSegments();
            // the flush: what the store file would get, in order, each key once, newest write winning
            List<KeyValue> flushed = new ArrayList<>();
            m.cells().forEach(kv -> flushed.add(kv.toOwnKeyValue()));
            assertEquals(new ArrayList<>(model.values()), flushed);
            m.release();
            pool.leaks().assertNoLeaks();
        }
        assertTrue(flattenings > 12);
        assertEquals(0, pool.stats().offheapInUse() + pool.stats().onheapInUse());
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void theFlatIndexLivesInTheMemstoresChunksAtTwelveBytesPerCell(boolean offheap) {
        ChunkPool pool = pool(offheap, 65536, 64);
        Memstore m = Memstore.compacting(new MslabCellStorage(pool, 512), 100_000);
        for (int i = 0; i < 800; i++) { // 800 x 31 bytes of cells: one chunk
            m.add(KeyValue.create(b(String.format("r%04d", i)), F, b("q"), 1, KeyValue.Type.PUT, b("value")));
        }
        assertEquals(0, m.flattenedSegments());
        assertEquals(1, pool.leaks().outstanding());
        m.add(KeyValue.create(b("r9999"), F, b("q"), 1, KeyValue.Type.PUT, b("x".repeat(30_000)))); // passes the threshold
        assertEquals(1, m.flattenedSegments());
        assertEquals(801, m.cellCount());
        // one jumbo chunk for the big cell; the index (801 x 12 = 9612 bytes) fits beside the cells: no new chunk
        assertEquals(2, pool.leaks().outstanding());
        assertEquals(offheap ? 1 : 0, pool.stats().offheapInUse());
        List<KeyValue> row = new ArrayList<>();
        m.getRow(b("r0250"), row);
        assertEquals(List.of(KeyValue.create(b("r0250"), F, b("q"), 1, KeyValue.Type.PUT, b("value"))), row);
        m.release();
        pool.leaks().assertNoLeaks();
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void concurrentWritersAndReadersAcrossFlatteningsLoseNothing(boolean offheap) throws Exception {
        ChunkPool pool = pool(offheap, 8192, 400);
        // A small in-memory flush threshold (about 60 flattenings for the 12,000 cells) so that even on a
        // loaded machine, where a flattening writer lets the others grow the active segment, well over the
        // 10 flattenings asserted below happen while the readers read.
        Memstore m = Memstore.compacting(new MslabCellStorage(pool, 1024), 8_000);
        int writers = 4;
        int perWriter = 3000;
        java.util.concurrent.atomic.AtomicInteger[] written = new java.util.concurrent.atomic.AtomicInteger[writers];
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int id = w;
            written[w] = new java.util.concurrent.atomic.AtomicInteger();
            threads.add(new Thread(() -> {
                for (int i = 0; i < perWriter; i++) {
                    m.add(KeyValue.create(b("w" + id + "-" + i), F, b("q"), 1, KeyValue.Type.PUT, b("value-" + id + "-" + i)));
                    written[id].set(i + 1);
                }
            }));
        }
        for (int r = 0; r < 2; r++) {
            Random rnd = new Random(r);
            threads.add(new Thread(() -> {
                try {
                    while (!done.get()) { // every cell a writer finished adding is visible, whatever flattens meanwhile
                        int w = rnd.nextInt(writers);
                        int n = written[w].get();
                        if (n == 0) {
                            continue;
                        }
                        int i = rnd.nextInt(n);
                        List<KeyValue> row = new ArrayList<>();
                        m.getRow(b("w" + w + "-" + i), row);
                        assertEquals(1, row.size(), "w" + w + "-" + i);
                        assertEquals("value-" + w + "-" + i, new String(row.get(0).value(), StandardCharsets.US_ASCII));
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (int t = 0; t < writers; t++) {
            threads.get(t).join();
        }
        done.set(true);
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(m.flattenedSegments() > 10, "flattened " + m.flattenedSegments());
        List<KeyValue> all = new ArrayList<>();
        m.cells().forEach(kv -> all.add(kv.toOwnKeyValue()));
        assertEquals(writers * perWriter, all.size());
        for (int i = 1; i < all.size(); i++) {
            assertTrue(CellComparator.INSTANCE.compare(all.get(i - 1), all.get(i)) < 0, "strictly ordered at " + i);
        }
        m.release();
        pool.leaks().assertNoLeaks();
    }
}
