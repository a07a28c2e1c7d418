package org.heaplab.core.cell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ByteBufferKeyValueTest {
    private static final KeyValue.Type[] TYPES = {KeyValue.Type.PUT, KeyValue.Type.DELETE, KeyValue.Type.DELETE_COLUMN};

    /** Random cells with few distinct bytes (so rows, columns and timestamps collide) including bytes >= 0x80. */
    private static List<KeyValue> randomCells(Random r, int n) {
        List<KeyValue> cells = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cells.add(KeyValue.create(bytes(r, 3), bytes(r, 2), bytes(r, 2), r.nextInt(3), TYPES[r.nextInt(TYPES.length)],
                bytes(r, 20)));
        }
        return cells;
    }

    private static byte[] bytes(Random r, int maxLen) {
        byte[] b = new byte[r.nextInt(maxLen + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (r.nextBoolean() ? 0x7f : (r.nextBoolean() ? 0x80 : 0x01));
        }
        return b;
    }

    /** The cells back to back in one buffer (heap or direct) at a random start, as ByteBufferKeyValue views. */
    private static List<ByteBufferKeyValue> views(List<KeyValue> cells, boolean direct) {
        int total = 7;
        for (KeyValue kv : cells) {
            total += kv.getLength();
        }
        ByteBuffer buf = direct ? ByteBuffer.allocateDirect(total) : ByteBuffer.allocate(total);
        int pos = 7;
        List<ByteBufferKeyValue> out = new ArrayList<>();
        for (KeyValue kv : cells) {
            buf.put(pos, kv.getBuffer(), kv.getOffset(), kv.getLength());
            out.add(new ByteBufferKeyValue(buf, pos, kv.getLength()));
            pos += kv.getLength();
        }
        return out;
    }

    @Test
    void sameAccessorsAsTheEqualKeyValueOnHeapAndDirectBuffers() {
        Random r = new Random(42);
        List<KeyValue> cells = randomCells(r, 300);
        for (boolean direct : new boolean[] {false, true}) {
            List<ByteBufferKeyValue> views = views(cells, direct);
            for (int i = 0; i < cells.size(); i++) {
                KeyValue kv = cells.get(i);
                ByteBufferKeyValue bb = views.get(i);
                assertEquals(kv.getLength(), bb.getSerializedLength());
                assertEquals(kv.keyLength(), bb.keyLength());
                assertEquals(kv.valueLength(), bb.valueLength());
                assertEquals(kv.rowLength(), bb.rowLength());
                assertEquals(kv.familyLength(), bb.familyLength());
                assertEquals(kv.qualifierLength(), bb.qualifierLength());
                assertEquals(kv.timestamp(), bb.timestamp());
                assertEquals(kv.type(), bb.type());
                assertArrayEquals(kv.row(), bb.row());
                assertArrayEquals(kv.family(), bb.family());
                assertArrayEquals(kv.qualifier(), bb.qualifier());
                assertArrayEquals(kv.value(), bb.value());
                assertEquals(kv, bb.toOwnKeyValue());
                assertEquals(0, CellComparator.INSTANCE.compare(kv, bb));
                assertEquals(kv.serializedView(), bb.serializedView());
            }
        }
    }

    @Test
    void sortsExactlyLikeKeyValuesIncludingMixedPairs() {
        Random r = new Random(7);
        List<KeyValue> cells = randomCells(r, 400);
        for (boolean direct : new boolean[] {false, true}) {
            List<ByteBufferKeyValue> views = views(cells, direct);
            for (int i = 0; i < cells.size(); i++) {
                for (int j = 0; j < cells.size(); j += 3) {
                    KeyValue a = cells.get(i);
                    KeyValue b = cells.get(j);
                    int expected = Integer.signum(CellComparator.INSTANCE.compare(a, b));
                    assertEquals(expected, Integer.signum(CellComparator.INSTANCE.compare(views.get(i), views.get(j))),
                        () -> "views " + a + " vs " + b);
                    assertEquals(expected, Integer.signum(CellComparator.INSTANCE.compare(views.get(i), cells.get(j))));
                    assertEquals(expected, Integer.signum(CellComparator.INSTANCE.compare(cells.get(i), views.get(j))));
                }
            }
        }
    }

    @Test
    void stampingWritesTheTimestampIntoTheBufferAndCopiesDoNotFollowLaterChanges() {
        KeyValue kv = KeyValue.create(new byte[] {1}, new byte[] {2}, new byte[] {3}, KeyValue.LATEST_TIMESTAMP,
            KeyValue.Type.PUT, new byte[] {4, 5});
        ByteBufferKeyValue bb = views(List.of(kv), true).get(0);
        KeyValue copy = bb.toOwnKeyValue();
        assertEquals(bb, bb.withTimestamp(1234));
        assertEquals(1234, bb.timestamp());
        assertEquals(KeyValue.LATEST_TIMESTAMP, copy.timestamp(), "the copy is independent of the buffer");
        KeyValue stamped = kv.withTimestamp(99);
        assertEquals(99, stamped.timestamp());
        assertEquals(KeyValue.LATEST_TIMESTAMP, kv.timestamp(), "a KeyValue is immutable: stamping copies");
    }

    @Test
    void rejectsALengthThatDoesNotMatchTheHeader() {
        KeyValue kv = KeyValue.create(new byte[] {1}, new byte[] {2}, new byte[0], 1, KeyValue.Type.PUT, new byte[3]);
        ByteBuffer buf = ByteBuffer.allocateDirect(kv.getLength() + 1);
        buf.put(0, kv.getBuffer(), 0, kv.getLength());
        assertThrows(IllegalArgumentException.class, () -> new ByteBufferKeyValue(buf, 0, kv.getLength() + 1));
    }
}
