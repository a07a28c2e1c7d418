package org.heaplab.core.region;

import static org.heaplab.core.TestKv.cell;
import static org.heaplab.core.TestKv.put;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.cell.KeyValue.Type;
import org.junit.jupiter.api.Test;

class RowMergerTest {
    private static List<KeyValue> sorted(KeyValue... cells) {
        List<KeyValue> l = new ArrayList<>(List.of(cells));
        l.sort(CellComparator.INSTANCE);
        return l;
    }

    @Test
    void newestTimestampPerColumnAcrossSources() {
        List<KeyValue> memstore = sorted(put("r", "a", 5, "mem-a5"), put("r", "b", 1, "mem-b1"));
        List<KeyValue> file = sorted(put("r", "a", 3, "file-a3"), put("r", "b", 9, "file-b9"), put("r", "c", 2, "c2"));
        assertEquals(List.of(put("r", "a", 5, "mem-a5"), put("r", "b", 9, "file-b9"), put("r", "c", 2, "c2")),
            RowMerger.merge(List.of(memstore, file)));
    }

    @Test
    void newerSourceWinsATimestampTie() {
        List<KeyValue> newer = List.of(put("r", "a", 5, "new"));
        List<KeyValue> older = List.of(put("r", "a", 5, "old"));
        assertEquals(List.of(put("r", "a", 5, "new")), RowMerger.merge(List.of(newer, older)));
        assertEquals(List.of(put("r", "a", 5, "old")), RowMerger.merge(List.of(older, newer)));
    }

    @Test
    void deleteMasksExactlyItsVersion() {
        List<KeyValue> cells = sorted(cell("r", "a", 5, Type.DELETE, ""), put("r", "a", 5, "v5"), put("r", "a", 4, "v4"));
        assertEquals(List.of(put("r", "a", 4, "v4")), RowMerger.merge(List.of(cells)));
    }

    @Test
    void deleteColumnMasksOlderVersionsOnly() {
        List<KeyValue> newer = List.of(cell("r", "a", 5, Type.DELETE_COLUMN, ""));
        List<KeyValue> older = sorted(put("r", "a", 6, "v6"), put("r", "a", 5, "v5"), put("r", "a", 1, "v1"),
            put("r", "b", 1, "b1"));
        assertEquals(List.of(put("r", "a", 6, "v6"), put("r", "b", 1, "b1")), RowMerger.merge(List.of(newer, older)));
        List<KeyValue> onlyOld = sorted(put("r", "a", 5, "v5"), put("r", "b", 1, "b1"));
        assertEquals(List.of(put("r", "b", 1, "b1")), RowMerger.merge(List.of(newer, onlyOld)));
    }

    @Test
    void deleteFamilyMasksEveryColumnUpToItsTimestamp() {
        List<KeyValue> cells = sorted(cell("r", "", 5, Type.DELETE_FAMILY, ""), put("r", "a", 5, "a5"),
            put("r", "b", 7, "b7"), put("r", "c", 2, "c2"), put("r", "", 9, "empty9"));
        assertEquals(List.of(put("r", "", 9, "empty9"), put("r", "b", 7, "b7")), RowMerger.merge(List.of(cells)));
    }

    @Test
    void deleteFamilyVersionMasksThatTimestampInEveryColumn() {
        List<KeyValue> cells = sorted(cell("r", "", 5, Type.DELETE_FAMILY_VERSION, ""), put("r", "a", 5, "a5"),
            put("r", "a", 4, "a4"), put("r", "b", 5, "b5"));
        assertEquals(List.of(put("r", "a", 4, "a4")), RowMerger.merge(List.of(cells)));
    }

    @Test
    void emptyWhenNothingLive() {
        assertEquals(List.of(), RowMerger.merge(List.of(List.of(), List.of(cell("r", "a", 1, Type.DELETE_COLUMN, "")))));
    }

    @Test
    void deleteFamilyAfterAnEmptyQualifierPutInCellOrderStillMasksOlderColumns() {
        // the empty-qualifier Put at 10 sorts before the marker at 5: it survives; the Put at 3 and column a do not
        List<KeyValue> cells = sorted(put("r", "", 10, "e10"), cell("r", "", 5, Type.DELETE_FAMILY, ""),
            put("r", "", 3, "e3"), put("r", "a", 4, "a4"), put("r", "a", 6, "a6"));
        assertEquals(List.of(put("r", "", 10, "e10"), put("r", "a", 6, "a6")), RowMerger.merge(List.of(cells)));
        List<KeyValue> older = sorted(put("r", "", 3, "e3"), put("r", "b", 2, "b2"));
        List<KeyValue> newer = sorted(put("r", "", 10, "e10"), cell("r", "", 5, Type.DELETE_FAMILY, ""));
        assertEquals(List.of(put("r", "", 10, "e10")), RowMerger.merge(List.of(newer, older)));
    }

    @Test
    void qualifierFilterKeepsAskedColumnsAndDeletesStillApply() {
        List<KeyValue> cells = sorted(put("r", "a", 1, "a1"), put("r", "b", 1, "b1"), put("r", "c", 1, "c1"),
            cell("r", "c", 1, Type.DELETE, ""));
        assertEquals(List.of(put("r", "b", 1, "b1")),
            RowMerger.merge(List.of(cells), List.of(org.heaplab.core.TestKv.b("c"), org.heaplab.core.TestKv.b("b"))));
        assertEquals(List.of(), RowMerger.merge(List.of(cells), List.of(org.heaplab.core.TestKv.b("zz"))));
    }

    @Test
    void mergesOffHeapViewsWithHeapCellsWithoutCopying() {
        KeyValue heapOld = put("r", "a", 1, "heap");
        KeyValue direct = put("r", "a", 2, "direct");
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocateDirect(direct.getLength());
        buf.put(direct.getBuffer(), direct.getOffset(), direct.getLength());
        org.heaplab.core.cell.Cell view = new org.heaplab.core.cell.ByteBufferKeyValue(buf, 0, direct.getLength());
        List<org.heaplab.core.cell.Cell> out = RowMerger.merge(List.of(List.of(heapOld), List.of(view)));
        assertEquals(1, out.size());
        org.junit.jupiter.api.Assertions.assertSame(view, out.get(0));
    }
}
