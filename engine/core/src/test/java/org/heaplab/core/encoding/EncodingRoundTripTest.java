package org.heaplab.core.encoding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.DataBlockEncoding;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class EncodingRoundTripTest {
    /**
     * Sorted cells of one family: rows of varying length (with shared prefixes), 1-4 columns, several
     * versions, delete types, timestamps from 0 to LATEST, empty and long values.
     */
    static List<KeyValue> cells(long seed, int rows) {
        Random rnd = new Random(seed);
        List<KeyValue> out = new ArrayList<>();
        TreeSet<String> names = new TreeSet<>();
        while (names.size() < rows) {
            names.add("row-" + Integer.toString(rnd.nextInt(rows * 20), 36) + "x".repeat(rnd.nextInt(3)));
        }
        KeyValue.Type[] types = {KeyValue.Type.PUT, KeyValue.Type.DELETE, KeyValue.Type.DELETE_COLUMN};
        for (String row : names) {
            if (rnd.nextInt(10) == 0) {
                out.add(KeyValue.create(bytes(row), bytes("f"), new byte[0], 1000, KeyValue.Type.DELETE_FAMILY, new byte[0]));
            }
            int columns = 1 + rnd.nextInt(4);
            for (int q = 0; q < columns; q++) {
                int versions = 1 + rnd.nextInt(3);
                long ts = rnd.nextInt(4) == 0 ? KeyValue.LATEST_TIMESTAMP - 1 : 1_700_000_000_000L + rnd.nextInt(1000);
                for (int v = 0; v < versions; v++) {
                    byte[] value = new byte[rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(300)];
                    rnd.nextBytes(value);
                    KeyValue.Type type = v == 0 ? types[rnd.nextInt(types.length)] : KeyValue.Type.PUT;
                    out.add(KeyValue.create(bytes(row), bytes("f"), bytes("q" + q), ts, type, value));
                    ts -= 1 + rnd.nextInt(v == 0 ? 3 : 100_000);
                    if (ts < 0) {
                        break;
                    }
                }
            }
            if (rnd.nextInt(20) == 0) {
                out.add(KeyValue.create(bytes(row), bytes("f"), bytes("zz"), 0, KeyValue.Type.PUT, bytes("ts zero")));
            }
        }
        out.sort(CellComparator.INSTANCE);
        return out;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] encode(DataBlockEncoding e, List<KeyValue> cells) {
        DataBlockEncoder encoder = Encodings.encoder(e);
        for (KeyValue kv : cells) {
            encoder.append(kv);
        }
        assertEquals(cells.size(), encoder.cellCount());
        int expected = encoder.encodedSize();
        byte[] block = encoder.finishBlock();
        assertEquals(expected, block.length, "encodedSize predicts the finished block");
        assertEquals(0, encoder.cellCount(), "finishBlock starts an empty block");
        return block;
    }

    /** The block as the cache would hand it out: a heap buffer, or a direct copy (off-heap cache slot). */
    static ByteBuffer buffer(byte[] block, boolean direct) {
        if (!direct) {
            return ByteBuffer.wrap(block);
        }
        ByteBuffer d = ByteBuffer.allocateDirect(block.length);
        d.put(block).flip();
        return d;
    }

    private static KeyValue copy(Cell c) {
        byte[] b = new byte[c.getSerializedLength()];
        c.copyTo(b, 0);
        return new KeyValue(b, 0, b.length);
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void everyCellComesBackInOrderFromHeapAndDirectBlocks(DataBlockEncoding e) {
        for (long seed = 1; seed <= 5; seed++) {
            List<KeyValue> cells = cells(seed, 150);
            byte[] block = encode(e, cells);
            for (boolean direct : new boolean[] {false, true}) {
                BlockSeeker s = Encodings.seeker(e, buffer(block, direct));
                List<KeyValue> got = new ArrayList<>();
                for (Cell c = s.current(); c != null; c = s.next() ? s.current() : null) {
                    got.add(copy(c));
                }
                assertEquals(cells, got, e + " seed " + seed + " direct " + direct);
                assertNull(s.current());
                assertFalse(s.next());
                s.rewind();
                assertEquals(cells.get(0), copy(s.current()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void seekToRowFindsEveryRowAndTheNextRowForAbsentOnes(DataBlockEncoding e) {
        List<KeyValue> cells = cells(42, 200);
        byte[] block = encode(e, cells);
        for (boolean direct : new boolean[] {false, true}) {
            BlockSeeker s = Encodings.seeker(e, buffer(block, direct));
            for (int i = 0; i < cells.size(); i++) {
                KeyValue first = cells.get(i);
                if (i > 0 && CellComparator.compareRows(cells.get(i - 1), first) == 0) {
                    continue;
                }
                assertTrue(s.seekToRow(first.row()));
                assertEquals(first, copy(s.current()), "seek to " + first);
                assertEquals(0, s.compareCurrentRow(first.row()));
                // an absent row just after this one ("row" + 0x00) lands on the following row, or the end
                byte[] after = Arrays.copyOf(first.row(), first.rowLength() + 1);
                int next = i;
                while (next < cells.size() && CellComparator.compareRows(cells.get(next), first) == 0) {
                    next++;
                }
                if (next < cells.size()) {
                    assertTrue(s.seekToRow(after));
                    assertEquals(cells.get(next), copy(s.current()));
                    assertTrue(s.compareCurrentRow(after) > 0);
                } else {
                    assertFalse(s.seekToRow(after));
                    assertNull(s.current());
                }
            }
            assertTrue(s.seekToRow(new byte[0]), "the empty row seeks to the first cell");
            assertEquals(cells.get(0), copy(s.current()));
            assertTrue(s.seekToRow(bytes("a")), "a row before every row seeks to the first cell");
            assertEquals(cells.get(0), copy(s.current()));
            assertFalse(s.seekToRow(bytes("zzz")), "a row after every row exhausts the seeker");
        }
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void longRowsQualifiersAndValuesNeedMultiByteLengths(DataBlockEncoding e) {
        Random rnd = new Random(11);
        List<KeyValue> cells = new ArrayList<>();
        for (int r = 0; r < 20; r++) {
            byte[] row = bytes(String.format("%03d", r) + "r".repeat(300 + r)); // 2-byte varint lengths
            for (int q = 0; q < 2; q++) {
                byte[] value = new byte[q == 0 ? 20_000 + r : 130]; // 3-byte varint value lengths
                rnd.nextBytes(value);
                cells.add(KeyValue.create(row, bytes("f"), bytes("q".repeat(200) + q), 5, KeyValue.Type.PUT, value));
            }
        }
        byte[] block = encode(e, cells);
        for (boolean direct : new boolean[] {false, true}) {
            BlockSeeker s = Encodings.seeker(e, buffer(block, direct));
            List<KeyValue> got = new ArrayList<>();
            for (Cell c = s.current(); c != null; c = s.next() ? s.current() : null) {
                got.add(copy(c));
            }
            assertEquals(cells, got);
            for (int i = 0; i < cells.size(); i += 2) {
                assertTrue(s.seekToRow(cells.get(i).row()));
                assertEquals(cells.get(i), copy(s.current()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void extremeTimestampsSurviveTheTimestampDiff(DataBlockEncoding e) {
        long[] stamps = {Long.MAX_VALUE, 1L << 40, 255, 0, -1, Long.MIN_VALUE};
        List<KeyValue> cells = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
            for (long ts : stamps) {
                cells.add(KeyValue.create(bytes("row"), bytes("f"), bytes("q" + q), ts, KeyValue.Type.PUT, bytes("v")));
            }
            cells.add(KeyValue.create(bytes("row"), bytes("f"), bytes("q" + q + "x"), 1_700_000_000_000L + q,
                KeyValue.Type.DELETE_COLUMN, new byte[0]));
        }
        cells.sort(CellComparator.INSTANCE);
        BlockSeeker s = Encodings.seeker(e, ByteBuffer.wrap(encode(e, cells)));
        List<KeyValue> got = new ArrayList<>();
        for (Cell c = s.current(); c != null; c = s.next() ? s.current() : null) {
            got.add(copy(c));
        }
        assertEquals(cells, got);
    }

    @ParameterizedTest
    @EnumSource(value = DataBlockEncoding.class, names = {"NONE", "ROW_INDEX_V1"})
    void flatEncodingsReturnViewsIntoTheBlockNeverCopies(DataBlockEncoding e) {
        List<KeyValue> cells = cells(7, 20);
        byte[] block = encode(e, cells);
        Cell heap = Encodings.seeker(e, ByteBuffer.wrap(block)).current();
        assertSame(block, assertInstanceOf(KeyValue.class, heap).getBuffer(), "a KeyValue over the block's array");
        ByteBuffer direct = buffer(block, true);
        Cell off = Encodings.seeker(e, direct).current();
        assertSame(direct, assertInstanceOf(ByteBufferKeyValue.class, off).buffer(), "a view over the direct block");
        assertEquals(0, direct.position(), "the shared buffer's position is never moved");
    }

    @ParameterizedTest
    @EnumSource(value = DataBlockEncoding.class, names = {"NONE", "ROW_INDEX_V1"})
    void rowIndexHasOneOffsetPerRowAfterTheCells(DataBlockEncoding e) {
        List<KeyValue> cells = cells(9, 50);
        byte[] block = encode(e, cells);
        int flat = cells.stream().mapToInt(KeyValue::getLength).sum();
        long rows = cells.stream().map(kv -> new String(kv.row(), StandardCharsets.UTF_8)).distinct().count();
        int expected = e == DataBlockEncoding.NONE ? flat : flat + 4 + 4 * (int) rows + 4;
        assertEquals(expected, block.length);
        if (e == DataBlockEncoding.ROW_INDEX_V1) {
            ByteBuffer b = ByteBuffer.wrap(block);
            assertEquals(flat, b.getInt(block.length - 4), "dataSize is the last int");
            assertEquals(rows, b.getInt(flat), "rowCount follows the cells");
            assertEquals(0, b.getInt(flat + 4), "the first row starts the block");
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataBlockEncoding.class, names = "DIFF")
    void diffIsSmallerThanNoneAndMaterializesHeapCells(DataBlockEncoding e) {
        List<KeyValue> cells = new ArrayList<>();
        for (int r = 0; r < 300; r++) {
            for (int q = 0; q < 3; q++) {
                cells.add(KeyValue.create(bytes(String.format("user%012d", r)), bytes("family"), bytes("field" + q),
                    1_700_000_000_000L + r, KeyValue.Type.PUT, bytes("v" + r)));
            }
        }
        byte[] diff = encode(e, cells);
        byte[] none = encode(DataBlockEncoding.NONE, cells);
        assertTrue(diff.length < none.length * 0.6, "diff " + diff.length + " vs none " + none.length);
        Cell c = Encodings.seeker(e, buffer(diff, true)).current();
        KeyValue kv = assertInstanceOf(KeyValue.class, c);
        assertEquals(kv.getLength(), kv.getBuffer().length, "a cell of its own on the heap");
    }
}
