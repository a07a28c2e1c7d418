package org.heaplab.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;

class PeCellsTest {
    @Test
    void heapViewsArePeShapedSlicesOfOneRequestBuffer() {
        Cell[] cells = PeCells.requestViews(7, 20, 200, false);
        byte[] shared = ((KeyValue) cells[0]).getBuffer();
        int at = 0;
        for (Cell c : cells) {
            KeyValue kv = assertInstanceOf(KeyValue.class, c);
            assertSame(shared, kv.getBuffer(), "every cell is a view into the same request buffer");
            assertEquals(at, kv.getOffset());
            at += kv.getLength();
            assertEquals(26, c.rowLength());
            assertTrue(new String(c.row(), StandardCharsets.US_ASCII).matches("[0-9]{26}"));
            assertArrayEquals("info0".getBytes(StandardCharsets.US_ASCII), c.family());
            assertArrayEquals("0".getBytes(StandardCharsets.US_ASCII), c.qualifier());
            assertEquals(200, c.valueLength());
        }
        assertEquals(shared.length, at);
        // a view does not own its array, so a memstore must copy it (one copy per insert)
        assertNotSame(cells[1], cells[1].toOwnKeyValue());
    }

    @Test
    void directViewsHoldTheSameCellsAsHeapViews() {
        Cell[] heap = PeCells.requestViews(7, 20, 100, false);
        Cell[] direct = PeCells.requestViews(7, 20, 100, true);
        for (int i = 0; i < heap.length; i++) {
            ByteBufferKeyValue d = assertInstanceOf(ByteBufferKeyValue.class, direct[i]);
            assertTrue(d.buffer().isDirect());
            assertEquals(0, CellComparator.INSTANCE.compare(heap[i], direct[i]));
            assertArrayEquals(heap[i].value(), direct[i].value());
        }
    }
}
