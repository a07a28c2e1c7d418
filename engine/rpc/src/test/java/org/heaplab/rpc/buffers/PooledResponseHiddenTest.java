package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.junit.jupiter.api.Test;

/**
 * Hidden test of the exercise pooled-response (engine/exercises.yml: the student edition leaves this file
 * out). What the public ResponseEncoderTest does not ask: a value exactly as long as a segment, params
 * that straddle a boundary, the source cell left where it was (a cell is served again from the cache),
 * and the heap: encoding responses of off-heap cells must allocate only a few small objects, never a
 * copy of the values.
 */
class PooledResponseHiddenTest {
    private static final int SEGMENT = 1024;

    private static byte[] bytes(ResponseFrame f) {
        ByteBuffer all = ByteBuffer.allocate((int) f.remaining());
        for (ByteBuffer b : f.buffers()) {
            all.put(b.duplicate());
        }
        return all.array();
    }

    private static List<Cell> offHeapCells(int n, int valueSize) {
        List<Cell> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            KeyValue kv = FrameRoundTripTest.kv("row-" + i, ("" + (char) ('a' + i % 26)).repeat(valueSize));
            ByteBuffer d = ByteBuffer.allocateDirect(kv.getLength());
            d.put(0, kv.getBuffer(), kv.getOffset(), kv.getLength());
            out.add(new ByteBufferKeyValue(d, 0, kv.getLength()));
        }
        return out;
    }

    @Test
    void framesEqualTheHeapEncodersAtEveryBoundaryAndTheCellsAreUntouched() {
        DirectBufferPool pool = new DirectBufferPool(SEGMENT, 64, 200, false, true, s -> { });
        PooledDirectResponseEncoder pooled = new PooledDirectResponseEncoder(pool);
        for (int paramsLength : new int[] {0, SEGMENT - 13, SEGMENT - 9, SEGMENT + 5}) {
            byte[] params = new byte[paramsLength];
            for (int i = 0; i < params.length; i++) {
                params[i] = (byte) (i * 13);
            }
            for (int valueSize : new int[] {SEGMENT, SEGMENT - 37, 3 * SEGMENT + 1}) {
                List<Cell> cells = offHeapCells(3, valueSize);
                ResponseFrame heap = HeapResponseEncoder.INSTANCE.encode(4, params, cells);
                ResponseFrame direct = pooled.encode(4, params, cells);
                assertArrayEquals(bytes(heap), bytes(direct), paramsLength + " params, values of " + valueSize);
                for (Cell c : cells) {
                    ByteBuffer view = c.serializedView();
                    assertEquals(c.getSerializedLength(), view.remaining(), "the cell can be served again");
                }
                heap.release();
                direct.release();
            }
        }
        pool.checkNoLeaks();
    }

    @Test
    void encodingOffHeapCellsCopiesNothingOntoTheHeap() {
        // leak detection off: it records a stack trace per buffer, which is what this test must not count
        DirectBufferPool pool = new DirectBufferPool(64 * SEGMENT, 16, 200, false, false, s -> { });
        PooledDirectResponseEncoder pooled = new PooledDirectResponseEncoder(pool);
        List<Cell> cells = offHeapCells(40, 1500); // about 60 KB of values per response
        byte[] params = new byte[16];
        for (int i = 0; i < 200; i++) { // warm up: classes loaded, code compiled
            pooled.encode(i, params, cells).release();
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        int responses = 200;
        for (int i = 0; i < responses; i++) {
            pooled.encode(i, params, cells).release();
        }
        long perResponse = (threads.getCurrentThreadAllocatedBytes() - before) / responses;
        // the frame, its buffer list and the cursor: well under 1 KB; a copy through a heap array: 60 KB
        assertTrue(perResponse < 4096, perResponse + " heap bytes allocated per response");
        pool.checkNoLeaks();
    }
}
