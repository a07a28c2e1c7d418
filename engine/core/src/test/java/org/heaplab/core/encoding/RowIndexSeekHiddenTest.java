package org.heaplab.core.encoding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.DataBlockEncoding;
import org.junit.jupiter.api.Test;

/**
 * Hidden test of the exercise row-index (engine/exercises.yml: the student edition leaves this file out).
 * What the public EncodingRoundTripTest does not ask: a seek that does not depend on where the seeker stands
 * (a seek backwards after a seek forwards, after next()), rows compared as unsigned bytes, rows that are
 * prefixes of each other, and a block of one row.
 */
class RowIndexSeekHiddenTest {

    private static KeyValue cell(byte[] row) {
        return KeyValue.create(row, EncodingRoundTripTest.bytes("f"), EncodingRoundTripTest.bytes("q"), 1,
            KeyValue.Type.PUT, new byte[] {1});
    }

    private static BlockSeeker seeker(List<byte[]> rows, boolean direct) {
        List<KeyValue> cells = new ArrayList<>();
        for (byte[] r : rows) {
            cells.add(cell(r));
        }
        cells.sort(CellComparator.INSTANCE);
        byte[] block = EncodingRoundTripTest.encode(DataBlockEncoding.ROW_INDEX_V1, cells);
        return Encodings.seeker(DataBlockEncoding.ROW_INDEX_V1, EncodingRoundTripTest.buffer(block, direct));
    }

    private static void assertAt(BlockSeeker s, byte[] row) {
        assertArrayEquals(row, s.current().row());
    }

    @Test
    void aSeekDoesNotDependOnWhereTheSeekerStands() {
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            rows.add(EncodingRoundTripTest.bytes(String.format("row-%05d", i * 2)));
        }
        for (boolean direct : new boolean[] {false, true}) {
            BlockSeeker s = seeker(rows, direct);
            assertTrue(s.seekToRow(rows.get(400)));
            assertTrue(s.next());
            assertTrue(s.seekToRow(rows.get(3)), "backwards, after a seek forwards and a next()");
            assertAt(s, rows.get(3));
            assertTrue(s.seekToRow(EncodingRoundTripTest.bytes("row-00001")), "an absent row between two");
            assertAt(s, rows.get(1));
            assertTrue(s.seekToRow(rows.get(499)));
            assertAt(s, rows.get(499));
            assertTrue(s.seekToRow(rows.get(0)));
            assertAt(s, rows.get(0));
        }
    }

    @Test
    void rowsCompareAsUnsignedBytesAndAPrefixSortsFirst() {
        byte[] a = {0x61};
        byte[] ab = {0x61, 0x62};
        byte[] high = {(byte) 0x80}; // above every ASCII row, though negative as a Java byte
        byte[] highest = {(byte) 0xff, 0x00};
        List<byte[]> rows = List.of(a, ab, high, highest);
        for (boolean direct : new boolean[] {false, true}) {
            BlockSeeker s = seeker(rows, direct);
            assertTrue(s.seekToRow(high));
            assertAt(s, high);
            assertTrue(s.seekToRow(new byte[] {0x7f}), "0x7f sorts before 0x80");
            assertAt(s, high);
            assertTrue(s.seekToRow(a));
            assertAt(s, a);
            assertTrue(s.seekToRow(new byte[] {0x61, 0x00}), "a + 0x00 sorts after a and before ab");
            assertAt(s, ab);
            assertTrue(s.seekToRow(new byte[] {(byte) 0xff}));
            assertAt(s, highest);
            assertFalse(s.seekToRow(new byte[] {(byte) 0xff, 0x01}), "after the last row: exhausted");
        }
    }

    @Test
    void aBlockOfOneRow() {
        byte[] only = EncodingRoundTripTest.bytes("only");
        for (boolean direct : new boolean[] {false, true}) {
            BlockSeeker s = seeker(List.of(only), direct);
            assertTrue(s.seekToRow(new byte[0]));
            assertAt(s, only);
            assertTrue(s.seekToRow(only));
            assertFalse(s.seekToRow(EncodingRoundTripTest.bytes("onlz")));
        }
    }
}
