package org.heaplab.core.memstore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;

class MemstoreComparatorTest {
    private static final KeyValue.Type[] TYPES = {KeyValue.Type.PUT, KeyValue.Type.DELETE, KeyValue.Type.DELETE_COLUMN,
        KeyValue.Type.DELETE_FAMILY, KeyValue.Type.MAXIMUM};

    private static byte[] bytes(Random rnd, int max) {
        byte[] b = new byte[rnd.nextInt(max + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (rnd.nextBoolean() ? 'a' + rnd.nextInt(3) : 0x7e + rnd.nextInt(4)); // signed and unsigned bytes
        }
        return b;
    }

    /** The same cell as a heap KeyValue, a view over a heap buffer at an offset, or a view over a direct buffer. */
    private static Cell shape(KeyValue kv, int shape) {
        if (shape == 0) {
            return kv;
        }
        ByteBuffer b = shape == 1 ? ByteBuffer.allocate(kv.getLength() + 7) : ByteBuffer.allocateDirect(kv.getLength() + 7);
        b.put(7, kv.getBuffer(), kv.getOffset(), kv.getLength());
        return new ByteBufferKeyValue(b, 7, kv.getLength());
    }

    @Test
    void ordersEveryShapeOfCellExactlyAsCellComparator() {
        Random rnd = new Random(1);
        for (int i = 0; i < 20_000; i++) {
            KeyValue a = KeyValue.create(bytes(rnd, 3), bytes(rnd, 2), bytes(rnd, 3), rnd.nextInt(3), TYPES[rnd.nextInt(5)],
                "v".getBytes(StandardCharsets.US_ASCII));
            KeyValue b = rnd.nextInt(4) == 0 ? a : KeyValue.create(bytes(rnd, 3), bytes(rnd, 2), bytes(rnd, 3), rnd.nextInt(3),
                TYPES[rnd.nextInt(5)], new byte[0]);
            int expected = Integer.signum(CellComparator.INSTANCE.compare(a, b));
            Cell sa = shape(a, rnd.nextInt(3));
            Cell sb = shape(b, rnd.nextInt(3));
            assertEquals(expected, Integer.signum(MemstoreComparator.INSTANCE.compare(sa, sb)), a + " vs " + b);
            assertEquals(-expected, Integer.signum(MemstoreComparator.INSTANCE.compare(sb, sa)), b + " vs " + a);
        }
    }
}
