package org.heaplab.core.region;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;

/** The Puts a request's cells decode into (ProtobufUtil.toPut's): one per row, a family map holding the very cells. */
class PutDecoderTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A cell as the 2.x decoder makes it: a view over one shared request buffer at {@code offset}. */
    private static Cell view(ByteBuffer request, int offset, String row, String family, String qualifier) {
        KeyValue kv = KeyValue.create(b(row), b(family), b(qualifier), KeyValue.LATEST_TIMESTAMP, KeyValue.Type.PUT,
            b("value-of-" + row + "-" + qualifier));
        request.put(offset, kv.getBuffer(), kv.getOffset(), kv.getLength());
        return new ByteBufferKeyValue(request, offset, kv.getLength());
    }

    @Test
    void eachRowBecomesAPutWhoseFamilyMapHoldsTheRequestsCellsThemselves() {
        ByteBuffer request = ByteBuffer.allocateDirect(4096);
        List<Cell> cells = new ArrayList<>();
        int at = 0;
        String[][] spec = {{"r1", "b", "q1"}, {"r1", "a", "q2"}, {"r1", "b", "q3"}, {"r2", "a", "q1"}};
        for (String[] s : spec) {
            Cell c = view(request, at, s[0], s[1], s[2]);
            cells.add(c);
            at += c.getSerializedLength();
        }

        List<Put> puts = PutDecoder.toPuts(cells);

        assertEquals(2, puts.size());
        Put first = puts.get(0);
        assertArrayEquals(b("r1"), first.row());
        assertEquals(3, first.size());
        Map<byte[], List<Cell>> map = first.familyCellMap();
        assertEquals(List.of("a", "b"), map.keySet().stream().map(k -> new String(k, StandardCharsets.UTF_8)).toList(),
            "families sorted as byte[] keys (HBase's Bytes.BYTES_COMPARATOR)");
        assertSame(cells.get(1), map.get(b("a")).get(0), "the request's cell itself, not a copy");
        assertEquals(List.of(cells.get(0), cells.get(2)), map.get(b("b")));
        assertSame(cells.get(0), map.get(b("b")).get(0));
        assertSame(cells.get(3), puts.get(1).familyCellMap().get(b("a")).get(0));
        assertArrayEquals(b("r2"), puts.get(1).row());
    }

    @Test
    void thePutsRowIsItsOwnCopy() {
        byte[] row = b("row");
        Put p = new Put(row);
        row[0] = 'x';
        assertArrayEquals(b("row"), p.row());
        assertNotSame(row, p.row());
    }

    @Test
    void aRowSentAgainLaterIsAnotherPut() {
        List<Cell> cells = List.of(kv("r1", "q1"), kv("r2", "q1"), kv("r1", "q2"));
        List<Put> puts = PutDecoder.toPuts(cells);
        assertEquals(List.of("r1", "r2", "r1"), puts.stream().map(p -> new String(p.row(), StandardCharsets.UTF_8)).toList());
    }

    @Test
    void aCellOfAnotherRowIsRefused() {
        Put p = new Put(b("r1"));
        assertThrows(IllegalArgumentException.class, () -> p.add(kv("r2", "q")));
        assertEquals(0, p.size());
    }

    @Test
    void noCellsNoPuts() {
        assertEquals(List.of(), PutDecoder.toPuts(List.of()));
    }

    private static KeyValue kv(String row, String qualifier) {
        return KeyValue.create(b(row), b("f"), b(qualifier), 1, KeyValue.Type.PUT, b("v"));
    }
}
