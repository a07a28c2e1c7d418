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
}
