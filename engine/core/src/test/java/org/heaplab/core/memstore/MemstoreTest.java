package org.heaplab.core.memstore;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.TestKv.cell;
import static org.heaplab.core.TestKv.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;

class MemstoreTest {
    @Test
    void iteratesInCellOrderWhateverTheInsertOrder() {
        List<KeyValue> expected = List.of(
            put("a", "q1", 9, "v"), put("a", "q1", 5, "v"),
            cell("a", "q2", 7, KeyValue.Type.DELETE_COLUMN, ""), put("a", "q2", 7, "v"),
            put("b", "", 1, "v"), put("b", "q", 3, "v"),
            put("b\u0080", "q", 1, "v")); // unsigned: 0x80.. sorts after ASCII
        List<KeyValue> shuffled = new ArrayList<>(expected);
        Collections.shuffle(shuffled, new Random(3));
        Memstore m = new Memstore();
        shuffled.forEach(m::add);
        List<KeyValue> all = new ArrayList<>();
        m.cells().forEach(all::add);
        assertEquals(expected, all);
    }

    @Test
    void getRowReturnsOnlyThatRow() {
        Memstore m = new Memstore();
        m.add(put("a", "q", 1, "1"));
        m.add(put("ab", "q", 1, "2"));
        m.add(put("b", "q", 1, "3"));
        m.add(put("ab", "r", 2, "4"));
        List<KeyValue> out = new ArrayList<>();
        m.getRow(b("ab"), out);
        assertEquals(List.of(put("ab", "q", 1, "2"), put("ab", "r", 2, "4")), out);
        out.clear();
        m.getRow(b("c"), out);
        assertTrue(out.isEmpty());
    }

    @Test
    void accountsHeapSizeAndReplacement() {
        Memstore m = new Memstore();
        KeyValue a = put("a", "q", 1, "value");
        KeyValue b = put("b", "q", 1, "vv");
        assertEquals(Memstore.cellHeapSize(a), m.add(a));
        m.add(b);
        assertEquals(a.getLength() + b.getLength() + 2L * Memstore.CELL_HEAP_OVERHEAD, m.heapSize());
        KeyValue a2 = put("a", "q", 1, "longer value");
        assertEquals(a2.getLength() - a.getLength(), m.add(a2), "same key replaces");
        assertEquals(2, m.cellCount());
        List<KeyValue> out = new ArrayList<>();
        m.getRow(b("a"), out);
        assertEquals(List.of(a2), out);
    }

    @Test
    void firstRowAtOrAfterWalksTheRowsInOrder() {
        Memstore m = new Memstore();
        m.add(put("b", "q", 1, "1"));
        m.add(put("ab", "q", 1, "2"));
        m.add(put("ab", "r", 2, "3"));
        m.add(put("b\u0080", "q", 1, "4"));
        List<String> rows = new ArrayList<>();
        for (byte[] r = m.firstRowAtOrAfter(new byte[0]); r != null;
             r = m.firstRowAtOrAfter(java.util.Arrays.copyOf(r, r.length + 1))) {
            rows.add(new String(r, java.nio.charset.StandardCharsets.UTF_8));
        }
        assertEquals(List.of("ab", "b", "b\u0080"), rows);
        assertEquals("b", new String(m.firstRowAtOrAfter(b("ab\u0000")), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(null, m.firstRowAtOrAfter(b("c")));
    }
}
