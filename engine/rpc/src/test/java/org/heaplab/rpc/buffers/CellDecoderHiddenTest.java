package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;

/**
 * Hidden test of the exercise cell-decoders (engine/exercises.yml: the student edition leaves this file
 * out). What the public CellDecoderTest does not ask: the heap copy each decoder counts (the 1.x decoder
 * one copy of the cell's length, the 2.x none), and what happens when the request buffer is overwritten
 * after decoding, at an offset other than 0, on the heap and off it: the 1.x cell keeps its bytes, the
 * 2.x view shows the new ones.
 */
class CellDecoderHiddenTest {
    private static final KeyValue CELL = KeyValue.create("row-7".getBytes(), "f".getBytes(), "q".getBytes(), 42,
        KeyValue.Type.PUT, "value-7".getBytes());
    private static final int AT = 37;

    private static ByteBuffer request(boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(256) : ByteBuffer.allocate(256);
        b.put(AT, CELL.getBuffer(), 0, CELL.getLength());
        return b;
    }

    private static void overwrite(ByteBuffer request) {
        request.put(AT + KeyValue.ROW_OFFSET + 2, (byte) 'R'); // the row's first byte: the next request reuses the buffer
    }

    @Test
    void theHeapCopyDecoderCountsOneCopyAndKeepsItsBytes() {
        for (boolean direct : new boolean[] {false, true}) {
            ByteBuffer req = request(direct);
            HeapCopies.Snapshot before = HeapCopies.snapshot();
            Cell c = CopyingCellDecoder.INSTANCE.decode(req, AT, CELL.getLength());
            HeapCopies.Snapshot after = HeapCopies.snapshot();
            assertEquals(CELL.getLength(), after.requestBytes() - before.requestBytes());
            assertEquals(1, after.requestCopies() - before.requestCopies());
            overwrite(req);
            assertEquals(CELL, c.toOwnKeyValue(), "direct=" + direct);
        }
    }

    @Test
    void theZeroCopyDecoderCountsNothingAndShowsTheRequestAsItIsNow() {
        for (boolean direct : new boolean[] {false, true}) {
            ByteBuffer req = request(direct);
            HeapCopies.Snapshot before = HeapCopies.snapshot();
            Cell c = ZeroCopyCellDecoder.INSTANCE.decode(req, AT, CELL.getLength());
            assertEquals(before, HeapCopies.snapshot(), "a view copies nothing");
            assertEquals(CELL, c.toOwnKeyValue());
            overwrite(req);
            assertArrayEquals("Row-7".getBytes(), c.toOwnKeyValue().row(), "direct=" + direct);
        }
    }
}
