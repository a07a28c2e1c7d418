package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;

/** The two decoding paths: how many copies a stamped cell costs, and whose memory it lives in. */
class CellDecoderTest {
    private static final KeyValue LATEST = KeyValue.create(new byte[] {'r'}, new byte[] {'f'}, new byte[] {'q'},
        KeyValue.LATEST_TIMESTAMP, KeyValue.Type.PUT, new byte[] {1, 2, 3});

    private static ByteBuffer request(boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(100) : ByteBuffer.allocate(100);
        b.put(20, LATEST.getBuffer(), 0, LATEST.getLength());
        return b;
    }

    @Test
    void copyingDecoderStampsItsOwnCopyAndTheMemstoreKeepsThatArray() {
        ByteBuffer req = request(false);
        Cell c = CopyingCellDecoder.INSTANCE.decode(req, 20, LATEST.getLength());
        Cell stamped = c.withTimestamp(77);
        assertSame(c, stamped, "stamped in place: no second copy");
        assertEquals(KeyValue.LATEST_TIMESTAMP, req.getLong(20 + LATEST.timestampOffset()), "the request is untouched");
        KeyValue own = c.toOwnKeyValue();
        assertEquals(77, own.timestamp());
        assertEquals(own.getLength(), own.getBuffer().length);
        assertSame(own.getBuffer(), ((ByteBufferKeyValue) c).buffer().array(), "the copy's array is handed over, not copied");
    }

    @Test
    void zeroCopyDecoderMakesViewsOverTheRequestOnHeapAndDirectBuffers() {
        for (boolean direct : new boolean[] {false, true}) {
            ByteBuffer req = request(direct);
            Cell c = ZeroCopyCellDecoder.INSTANCE.decode(req, 20, LATEST.getLength());
            assertTrue(c instanceof ByteBufferKeyValue);
            assertSame(req, ((ByteBufferKeyValue) c).buffer());
            c.withTimestamp(88);
            assertEquals(88, req.getLong(20 + LATEST.timestampOffset()), "stamped into the request buffer");
            KeyValue own = c.toOwnKeyValue();
            req.put(20 + KeyValue.ROW_OFFSET + 2, (byte) 'x'); // the buffer is reused
            assertEquals('r', own.row()[0], "toOwnKeyValue copied");
        }
    }
}
