package org.heaplab.core.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * CellComparator has two paths: arrays for two heap KeyValues, absolute byte reads when a
 * ByteBufferKeyValue is involved (the off-heap memstore). They must agree, and the second must not
 * allocate.
 */
class CellComparatorShapesTest {
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
            assertEquals(expected, Integer.signum(CellComparator.INSTANCE.compare(sa, sb)), a + " vs " + b);
            assertEquals(-expected, Integer.signum(CellComparator.INSTANCE.compare(sb, sa)), b + " vs " + a);
        }
    }

    /** The lock stripe of a put's row is hashed in place: it must equal the hash of the copied row, every shape. */
    @Test
    void rowHashCodeIsTheRowArraysHashCodeInEveryShape() {
        Random rnd = new Random(2);
        for (int i = 0; i < 5_000; i++) {
            KeyValue kv = KeyValue.create(bytes(rnd, 20), bytes(rnd, 2), bytes(rnd, 3), 1, KeyValue.Type.PUT, new byte[3]);
            for (int shape = 0; shape < 3; shape++) {
                assertEquals(java.util.Arrays.hashCode(kv.row()), CellComparator.rowHashCode(shape(kv, shape)), kv.toString());
            }
        }
    }

    @Test
    void comparingTwoDirectCellsAllocatesNothing() {
        KeyValue kv = KeyValue.create("row-0000000001".getBytes(StandardCharsets.US_ASCII), "info0".getBytes(StandardCharsets.US_ASCII),
            "0".getBytes(StandardCharsets.US_ASCII), 5, KeyValue.Type.PUT, new byte[100]);
        KeyValue other = KeyValue.create("row-0000000002".getBytes(StandardCharsets.US_ASCII), "info0".getBytes(StandardCharsets.US_ASCII),
            "0".getBytes(StandardCharsets.US_ASCII), 5, KeyValue.Type.PUT, new byte[100]);
        Cell a = shape(kv, 2);
        Cell b = shape(other, 2);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int sum = 0;
        for (int i = 0; i < 20_000; i++) { // warm up so the JIT has compiled the path (escape analysis)
            sum += CellComparator.INSTANCE.compare(a, b);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            sum += CellComparator.INSTANCE.compare(a, b);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(sum < 0, "row-...1 sorts before row-...2");
        // A slice per compared range would be several MB here; allow a few KB of unrelated noise.
        assertTrue(allocated < 64 * 1024, "100,000 comparisons of direct cells allocated " + allocated + " bytes");
    }
}
