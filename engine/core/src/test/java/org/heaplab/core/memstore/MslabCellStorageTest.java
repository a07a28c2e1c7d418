package org.heaplab.core.memstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class MslabCellStorageTest {
    private static final byte[] F = "f".getBytes(StandardCharsets.US_ASCII);

    private static KeyValue cell(String row, int valueSize, char fill) {
        return KeyValue.create(row.getBytes(StandardCharsets.US_ASCII), F, new byte[] {'q'}, 1, KeyValue.Type.PUT,
            String.valueOf(fill).repeat(valueSize).getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void cellsShareAChunkAndRollOverToTheNextWhenFull() {
        ChunkPool pool = new ChunkPool(1024, 10);
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        KeyValue a = s.copyIn(cell("a", 280, 'a')); // 303 bytes each: three fit in 1024
        KeyValue b = s.copyIn(cell("b", 280, 'b'));
        KeyValue c = s.copyIn(cell("c", 280, 'c'));
        assertSame(a.getBuffer(), b.getBuffer());
        assertSame(a.getBuffer(), c.getBuffer());
        assertEquals(1024, a.getBuffer().length);
        assertEquals(a.getLength(), b.getOffset());
        KeyValue d = s.copyIn(cell("d", 280, 'd'));
        assertNotSame(a.getBuffer(), d.getBuffer(), "the fourth cell rolls to a new chunk");
        assertEquals(0, d.getOffset());
        assertEquals(2, s.chunkCount());
        assertEquals(cell("c", 280, 'c'), c);
    }

    @Test
    void cellsAboveTheMaxAllocationStayOnTheHeapInTheirOwnArray() {
        ChunkPool pool = new ChunkPool(4096, 10);
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        KeyValue big = s.copyIn(cell("big", 600, 'x'));
        assertEquals(big.getLength(), big.getBuffer().length);
        assertEquals(0, s.chunkCount());
        assertEquals(0, pool.pooledCreated());
        assertSame(big, s.export(big), "an own-array cell needs no copy on the way out");
    }

    @Test
    void chunksReturnToThePoolOnlyWhenTheFlushedSnapshotAndItsReadersAreDone() {
        ChunkPool pool = new ChunkPool(1024, 4);
        Memstore m = new Memstore(new MslabCellStorage(pool, 512));
        for (int i = 0; i < 6; i++) {
            m.add(cell("r" + i, 280, 'v'));
        }
        assertEquals(2, pool.pooledCreated());
        assertTrue(m.tryRetain(), "a reader holds the memstore");
        m.release(); // the store's reference, after the flush
        assertEquals(0, pool.freeCount(), "a reader still uses the chunks");
        List<KeyValue> row = new ArrayList<>();
        m.getRow("r3".getBytes(StandardCharsets.US_ASCII), row);
        m.release(); // the reader's
        assertEquals(2, pool.freeCount(), "both chunks are back");
        assertFalse(m.tryRetain(), "a released memstore cannot be retained again");
        // the next memstore reuses them and overwrites their bytes; what the reader copied out stays intact
        Memstore next = new Memstore(new MslabCellStorage(pool, 512));
        for (int i = 0; i < 6; i++) {
            next.add(cell("s" + i, 280, 'w'));
        }
        assertEquals(2, pool.pooledCreated(), "no new chunk: the pool's were reused");
        assertEquals(cell("r3", 280, 'v'), row.get(0));
    }

    @Test
    void anExhaustedPoolHandsOutUnpooledChunksThatAreDroppedOnReturn() {
        ChunkPool pool = new ChunkPool(1024, 1);
        MslabCellStorage s = new MslabCellStorage(pool, 512);
        for (int i = 0; i < 6; i++) {
            s.copyIn(cell("r" + i, 280, 'v'));
        }
        assertEquals(1, pool.pooledCreated());
        assertEquals(1, pool.unpooledAllocations());
        s.close();
        assertEquals(1, pool.freeCount());
    }

    @Test
    void storedDataIsIntactAfterTheRequestBufferIsReused() {
        ChunkPool pool = new ChunkPool(4096, 4);
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
    }

    @Test
    void concurrentWritersNeverOverlapInAChunk() throws Exception {
        ChunkPool pool = new ChunkPool(8192, 100);
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
    }

    @Test
    void theConfigurationChoosesPlainOrMslabWithAPoolBoundedByTheGlobalMemstore() {
        assertSame(PlainCellStorage.FACTORY, CellStorages.fromConf(new Configuration(), 1 << 30));
        CellStorage.Factory f = CellStorages.fromConf(new Configuration().set(StorageKeys.MSLAB_ENABLED, "true")
            .set(StorageKeys.CHUNK_POOL_MAX_SIZE, "0.5"), 100L * 2 * 1024 * 1024);
        assertTrue(f.create() instanceof MslabCellStorage);
        assertTrue(f.describe().contains("pool of at most 50 chunks"), f.describe());
    }
}
