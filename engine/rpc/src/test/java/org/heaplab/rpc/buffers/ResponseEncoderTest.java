package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RowsCodec;
import org.junit.jupiter.api.Test;

/** The two response encoders write the same bytes; multi-row params split the cell block back exactly. */
class ResponseEncoderTest {
    private static byte[] bytes(ResponseFrame f) {
        ByteBuffer all = ByteBuffer.allocate((int) f.remaining());
        for (ByteBuffer b : f.buffers()) {
            all.put(b.duplicate());
        }
        return all.array();
    }

    private static List<Cell> cells(int n, int valueSize, boolean direct) {
        List<Cell> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            KeyValue kv = FrameRoundTripTest.kv("row-" + i, ("" + (char) ('a' + i % 26)).repeat(valueSize));
            if (direct) {
                ByteBuffer d = ByteBuffer.allocateDirect(kv.getLength());
                d.put(0, kv.getBuffer(), kv.getOffset(), kv.getLength());
                out.add(new ByteBufferKeyValue(d, 0, kv.getLength()));
            } else {
                out.add(kv);
            }
        }
        return out;
    }

    @Test
    void pooledFramesEqualHeapFramesWhateverTheSegmentBoundaries() throws Exception {
        DirectBufferPool pool = new DirectBufferPool(1024, 64, 200, false, true, s -> { });
        PooledDirectResponseEncoder pooled = new PooledDirectResponseEncoder(pool);
        byte[] params = new ParamWriter().writeInt(3).writeString("params").toByteArray();
        for (int n : new int[] {0, 1, 7, 40}) {
            for (int valueSize : new int[] {1, 100, 1500}) { // values shorter than, and straddling, 1 KB segments
                List<Cell> cs = cells(n, valueSize, n % 2 == 1);
                ResponseFrame heap = HeapResponseEncoder.INSTANCE.encode(9, params, cs);
                ResponseFrame direct = pooled.encode(9, params, cs);
                assertTrue(direct.isDirect() && !heap.isDirect());
                assertArrayEquals(bytes(heap), bytes(direct), n + " cells of " + valueSize + " bytes");
                Response r = FrameReader.readResponse(java.util.Arrays.copyOfRange(bytes(direct), 4, bytes(direct).length));
                assertEquals(9, r.callId());
                assertEquals(n, r.cells().size());
                heap.release();
                direct.release();
            }
        }
        pool.checkNoLeaks();
        assertEquals(0, pool.responseHeapBytes(), "whole pooled buffers, even for a 20-byte frame");
        assertEquals(pool.createdBuffers(), pool.freeBuffers());
    }

    @Test
    void anExhaustedPoolPutsTheTailOnTheHeapAndCountsIt() {
        DirectBufferPool pool = new DirectBufferPool(1024, 2, 200, false, true, s -> { });
        ResponseFrame f = new PooledDirectResponseEncoder(pool).encode(1, new byte[0], cells(10, 500, false));
        assertArrayEquals(bytes(HeapResponseEncoder.INSTANCE.encode(1, new byte[0], cells(10, 500, false))), bytes(f));
        assertEquals(2048, pool.responsePoolBytes());
        assertTrue(pool.responseHeapBytes() > 0);
        f.release();
        pool.checkNoLeaks();
    }

    @Test
    void rowsCodecSplitsTheCellBlockByTheCounts() throws Exception {
        List<List<KeyValue>> rows = List.of(List.of(FrameRoundTripTest.kv("a", "1"), FrameRoundTripTest.kv("a", "2")), List.of(),
            List.of(FrameRoundTripTest.kv("c", "3")));
        ParamWriter w = new ParamWriter();
        RowsCodec.writeCounts(w, rows);
        byte[] frame = FrameWriter.ok(5, w.toByteArray(), RowsCodec.flatten(rows));
        Response r = FrameReader.readResponse(java.util.Arrays.copyOfRange(frame, 4, frame.length));
        assertEquals(rows, RowsCodec.readRows(r.paramReader(), r.cells(), r.callId()));

        ParamWriter tooMany = new ParamWriter().writeInt(2).writeInt(1).writeInt(5);
        assertEquals(ErrorCode.MALFORMED_REQUEST, assertThrows(MalformedFrameException.class,
            () -> RowsCodec.readRows(new ParamReader(tooMany.toByteArray(), 5), r.cells(), 5)).code());
        ParamWriter tooFew = new ParamWriter().writeInt(1).writeInt(1);
        assertTrue(assertThrows(MalformedFrameException.class,
            () -> RowsCodec.readRows(new ParamReader(tooFew.toByteArray(), 5), r.cells(), 5)).getMessage()
            .contains("row counts cover 1 of 3 cells"));
    }
}
