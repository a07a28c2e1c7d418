package org.heaplab.core.cell;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.TestKv.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CellsTest {
    @Test
    void withTimestampChangesOnlyTheTimestamp() {
        KeyValue kv = put("row", "q", KeyValue.LATEST_TIMESTAMP, "value");
        KeyValue stamped = Cells.withTimestamp(kv, 1234);
        assertEquals(put("row", "q", 1234, "value"), stamped);
        assertEquals(KeyValue.LATEST_TIMESTAMP, kv.timestamp(), "the original is untouched");
    }

    @Test
    void ownArrayCopiesSlicesOnly() {
        KeyValue whole = put("r", "q", 1, "v");
        assertSame(whole, Cells.ownArray(whole));
        byte[] big = new byte[whole.getLength() + 10];
        System.arraycopy(whole.getBuffer(), 0, big, 5, whole.getLength());
        KeyValue slice = new KeyValue(big, 5, whole.getLength());
        KeyValue own = Cells.ownArray(slice);
        assertEquals(whole, own);
        assertEquals(own.getLength(), own.getBuffer().length);
    }

    @Test
    void firstOnRowSortsBeforeEveryCellOfTheRow() {
        KeyValue first = Cells.firstOnRow(b("r"));
        assertTrue(CellComparator.INSTANCE.compare(first, put("r", "", Long.MAX_VALUE - 1, "")) < 0);
        assertTrue(CellComparator.INSTANCE.compare(first, put("q", "zz", 1, "")) > 0);
    }

    @Test
    void sameColumnRespectsTheFamilyQualifierBoundary() {
        KeyValue a = KeyValue.create(b("r"), b("ab"), b("c"), 1, KeyValue.Type.PUT, b(""));
        KeyValue c = KeyValue.create(b("r"), b("a"), b("bc"), 1, KeyValue.Type.PUT, b(""));
        assertFalse(Cells.sameColumn(a, c));
        assertTrue(Cells.sameColumn(a, KeyValue.create(b("x"), b("ab"), b("c"), 9, KeyValue.Type.DELETE, b(""))));
    }
}
