package org.heaplab.core.memstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class MslabCellStorageTest {
    private static final byte[] F = "f".getBytes(StandardCharsets.US_ASCII);

    static KeyValue cell(String row, int valueSize, char fill) {
        return KeyValue.create(row.getBytes(StandardCharsets.US_ASCII), F, new byte[] {'q'}, 1, KeyValue.Type.PUT,
            String.valueOf(fill).repeat(valueSize).getBytes(StandardCharsets.US_ASCII));
    }

    /** A pool of {@code chunks} chunks of {@code size} bytes, on or off heap, with the leak detector on. */
    static ChunkPool pool(boolean offheap, int size, int chunks) {
        ChunkLeakDetector leaks = ChunkLeakDetector.enabled(true);
        return offheap ? new OffheapChunkPool(size, chunks, leaks) : new HeapChunkPool(size, chunks, leaks);
    }

    private static int offset(Cell c) {
        return c instanceof KeyValue kv ? kv.getOffset() : ((ByteBufferKeyValue) c).offset();
    }

    @Test
    void heapCellsShareAChunkAndRollOverToTheNextWhenFull() {
        HeapChunkPool pool = new HeapChunkPool(1024, 10);
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        KeyValue a = (KeyValue) s.copyIn(cell("a", 280, 'a')); // 303 bytes each: three fit in 1024
        KeyValue b = (KeyValue) s.copyIn(cell("b", 280, 'b'));
        KeyValue c = (KeyValue) s.copyIn(cell("c", 280, 'c'));
        assertSame(a.getBuffer(), b.getBuffer());
        assertSame(a.getBuffer(), c.getBuffer());
        assertEquals(1024, a.getBuffer().length);
        assertEquals(a.getLength(), b.getOffset());
        KeyValue d = (KeyValue) s.copyIn(cell("d", 280, 'd'));
        assertNotSame(a.getBuffer(), d.getBuffer(), "the fourth cell rolls to a new chunk");
        assertEquals(0, d.getOffset());
        assertEquals(2, s.chunkCount());
        assertEquals(cell("c", 280, 'c'), c);
    }

    @Test
    void offheapCellsAreViewsOverDirectChunks() {
        OffheapChunkPool pool = new OffheapChunkPool(1024, 2, ChunkLeakDetector.enabled(true));
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        Cell a = s.copyIn(cell("a", 280, 'a'));
        Cell b = s.copyIn(cell("b", 280, 'b'));
        ByteBufferKeyValue va = assertInstanceOf(ByteBufferKeyValue.class, a);
        assertTrue(va.buffer().isDirect());
        assertSame(va.buffer(), ((ByteBufferKeyValue) b).buffer(), "one chunk");
        assertEquals(a.getSerializedLength(), offset(b));
        assertEquals(cell("b", 280, 'b'), s.export(b), "export copies the cell onto the heap");
        assertEquals(new ChunkPool.ChunkStats(1, 0, 0, 1), pool.stats());
        s.close();
        assertEquals(new ChunkPool.ChunkStats(0, 0, 0, 2), pool.stats());
        pool.leaks().assertNoLeaks();
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void cellsAboveTheMaxAllocationGetAHeapChunkOfTheirOwn(boolean offheap) {
        ChunkPool pool = pool(offheap, 4096, 10);
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        KeyValue big = assertInstanceOf(KeyValue.class, s.copyIn(cell("big", 600, 'x')));
        assertEquals(big.getLength(), big.getBuffer().length);
        assertEquals(1, s.chunkCount(), "a jumbo chunk");
        assertSame(big, s.export(big), "an own-array cell needs no copy on the way out");
        assertEquals(new ChunkPool.ChunkStats(0, 1, 0, offheap ? 10 : 0), pool.stats());
        s.close();
        pool.leaks().assertNoLeaks();
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void chunksReturnToThePoolOnlyWhenTheFlushedSnapshotAndItsReadersAreDone(boolean offheap) {
        ChunkPool pool = pool(offheap, 1024, 4);
        Memstore m = new Memstore(new MslabCellStorage(pool, 512));
        for (int i = 0; i < 6; i++) {
            m.add(cell("r" + i, 280, 'v'));
        }
        assertEquals(2, pool.leaks().outstanding());
        assertTrue(m.tryRetain(), "a reader holds the memstore");
        m.release(); // the store's reference, after the flush
        assertEquals(2, pool.leaks().outstanding(), "a reader still uses the chunks");
        List<KeyValue> row = new ArrayList<>();
        m.getRow("r3".getBytes(StandardCharsets.US_ASCII), row);
        m.release(); // the reader's
        pool.leaks().assertNoLeaks();
        assertEquals(offheap ? 4 : 2, pool.stats().pooledFree(), "both chunks are back");
        assertFalse(m.tryRetain(), "a released memstore cannot be retained again");
        // the next memstore reuses them and overwrites their bytes; what the reader copied out stays intact
        Memstore next = new Memstore(new MslabCellStorage(pool, 512));
        for (int i = 0; i < 6; i++) {
            next.add(cell("s" + i, 280, 'w'));
        }
        assertEquals(0, pool.stats().heapFallback());
        assertEquals(cell("r3", 280, 'v'), row.get(0));
        next.release();
        pool.leaks().assertNoLeaks();
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void anExhaustedPoolFallsBackToCountedHeapChunksThatAreDroppedOnReturn(boolean offheap) {
        ChunkPool pool = pool(offheap, 1024, 1);
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        List<Cell> stored = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            stored.add(s.copyIn(cell("r" + i, 280, 'v')));
        }
        assertEquals(offheap, stored.get(0) instanceof ByteBufferKeyValue, "the first chunk is the pool's");
        assertInstanceOf(KeyValue.class, stored.get(5), "the fallback chunk is on the heap");
        assertEquals(cell("r5", 280, 'v'), s.export(stored.get(5)));
        assertEquals(new ChunkPool.ChunkStats(offheap ? 1 : 0, offheap ? 1 : 2, 1, 0), pool.stats());
        s.close();
        assertEquals(new ChunkPool.ChunkStats(0, 0, 1, 1), pool.stats(), "the pooled chunk is back, the fallback dropped");
        pool.leaks().assertNoLeaks();
    }

    @Test
    void theLeakDetectorNamesChunksNeverReturnedAndAChunkCannotBeReturnedTwice() {
        ChunkPool pool = pool(true, 1024, 2);
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        s.copyIn(cell("a", 10, 'a'));
        IllegalStateException leak = assertThrows(IllegalStateException.class, () -> pool.leaks().assertNoLeaks());
        assertTrue(leak.getMessage().contains("1 MSLAB chunk(s) never returned"), leak.getMessage());
        Chunk c = pool.take();
        pool.give(c);
        assertThrows(IllegalStateException.class, () -> pool.give(c));
        s.close();
        pool.leaks().assertNoLeaks();
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void storedDataIsIntactAfterTheRequestBufferIsReused(boolean offheap) {
        ChunkPool pool = pool(offheap, 4096, 4);
        Memstore m = new Memstore(new MslabCellStorage(pool, 1024));
        Memstore plain = new Memstore(new PlainCellStorage());
        KeyValue original = cell("row", 100, 'a');
        ByteBuffer request = ByteBuffer.allocateDirect(original.getLength());
        request.put(0, original.getBuffer(), 0, original.getLength());
        ByteBufferKeyValue view = new ByteBufferKeyValue(request, 0, original.getLength());
        m.add(view);
        plain.add(view);
        KeyValue next = cell("row", 100, 'z'); // the next request overwrites the same buffer
        request.put(0, next.getBuffer(), 0, next.getLength());
        for (Memstore mem : List.of(m, plain)) {
            List<KeyValue> out = new ArrayList<>();
            mem.getRow("row".getBytes(StandardCharsets.US_ASCII), out);
            assertEquals(1, out.size());
            assertArrayEquals(original.value(), out.get(0).value());
        }
        m.release();
        pool.leaks().assertNoLeaks();
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void concurrentWritersNeverOverlapInAChunk(boolean offheap) throws Exception {
        ChunkPool pool = pool(offheap, 8192, 100);
        Memstore m = new Memstore(new MslabCellStorage(pool, 1024));
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            char fill = (char) ('a' + t);
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 500; i++) {
                    m.add(cell(fill + "-" + i, 50 + i % 40, fill));
                }
            });
            ts.add(th);
            th.start();
        }
        start.countDown();
        for (Thread th : ts) {
            th.join();
        }
        assertEquals(threads * 500, m.cellCount());
        for (KeyValue kv : m.cells()) {
            char fill = (char) kv.row()[0];
            int i = Integer.parseInt(new String(kv.row(), StandardCharsets.US_ASCII).substring(2));
            assertEquals(cell(fill + "-" + i, 50 + i % 40, fill), kv);
        }
        m.release();
        pool.leaks().assertNoLeaks();
    }

    @Test
    void theConfigurationChoosesPlainOrMslabOnOrOffHeap() {
        Memstores plain = (Memstores) Memstores.fromConf(new Configuration(), 1 << 30);
        assertTrue(plain.create().storage() instanceof PlainCellStorage);
        assertEquals(null, plain.pool());
        Memstores onHeap = (Memstores) Memstores.fromConf(new Configuration().set(StorageKeys.MSLAB_ENABLED, "true")
            .set(StorageKeys.CHUNK_POOL_MAX_SIZE, "0.5"), 100L * 2 * 1024 * 1024);
        assertTrue(onHeap.create().storage() instanceof MslabCellStorage);
        assertEquals(50, ((HeapChunkPool) onHeap.pool()).maxPooled());
        Memstores offHeap = (Memstores) Memstores.fromConf(new Configuration().set(StorageKeys.MSLAB_ENABLED, "true")
            .set(StorageKeys.MSLAB_CHUNK_SIZE, "65536").set(StorageKeys.MSLAB_MAX_ALLOCATION, "8192")
            .set(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, "2"), 1 << 30);
        assertEquals(32, ((OffheapChunkPool) offHeap.pool()).pooledChunks());
        assertEquals(32, offHeap.stats().chunks().pooledFree());
        assertTrue(offHeap.describe().contains("off-heap chunks of 65536 bytes, 32 reserved"), offHeap.describe());
    }

    @Test
    void badMemstoreSettingsFailWithOneLineNamingTheKey() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> Memstores.fromConf(
            new Configuration().set(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE, "64"), 1 << 30));
        assertTrue(e.getMessage().contains(StorageKeys.MSLAB_ENABLED), e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> Memstores.fromConf(
            new Configuration().set(StorageKeys.COMPACTING_MEMSTORE_TYPE, "BASIC"), 1 << 30));
        assertTrue(e.getMessage().startsWith(StorageKeys.COMPACTING_MEMSTORE_TYPE + "=BASIC needs"), e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> Memstores.fromConf(
            new Configuration().set(StorageKeys.COMPACTING_MEMSTORE_TYPE, "EAGER"), 1 << 30));
        assertTrue(e.getMessage().contains("must be NONE or BASIC"), e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> Memstores.fromConf(new Configuration()
            .set(StorageKeys.MSLAB_ENABLED, "true").set(StorageKeys.COMPACTING_MEMSTORE_INDEX, "ARRAY_MAP"), 1 << 30));
        assertTrue(e.getMessage().contains("must be CHUNK_MAP"), e.getMessage());
    }
}
