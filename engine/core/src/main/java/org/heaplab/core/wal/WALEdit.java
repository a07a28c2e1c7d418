package org.heaplab.core.wal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cell.Cell;

/**
 * The cells of one WAL append: stands for HBase's org.apache.hadoop.hbase.wal.WALEdit, an ArrayList of
 * cells that the region fills from its puts' family maps (HRegion's buildWALEdits) and the WAL's consumer
 * encodes. The cells are not copied: they are the puts' (views over the request buffer on 2.x), read
 * until the append's {@link WalAppend#cellsRead()} completes.
 *
 * <p>HBase's WALEdit also keeps the families it holds (a TreeSet, for replication scopes) and may hold
 * a marker (flush, compaction, region event) instead of cells: the engine has neither.
 */
public final class WALEdit {
    private final ArrayList<Cell> cells;

    /** An edit with room for {@code expectedCells} cells. */
    public WALEdit(int expectedCells) {
        this.cells = new ArrayList<>(expectedCells);
    }

    /** An edit of {@code cells}, in order (tools and tests: the list is copied, the cells are not). */
    public static WALEdit of(List<? extends Cell> cells) {
        WALEdit e = new WALEdit(cells.size());
        for (int i = 0; i < cells.size(); i++) {
            e.cells.add(cells.get(i));
        }
        return e;
    }

    /** Adds every cell of a put's family map, family by family (WALEdit.add(Map) in HBase). */
    public WALEdit add(Map<byte[], List<Cell>> familyMap) {
        for (List<Cell> family : familyMap.values()) {
            cells.addAll(family);
        }
        return this;
    }

    public void add(Cell cell) {
        cells.add(cell);
    }

    /** The cells, in order; the edit's own list (do not modify). */
    public List<Cell> cells() {
        return cells;
    }

    public int size() {
        return cells.size();
    }

    public boolean isEmpty() {
        return cells.isEmpty();
    }
}
