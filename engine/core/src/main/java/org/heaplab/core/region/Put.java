package org.heaplab.core.region;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;

/**
 * One row's mutation as the region server decodes it: stands for HBase's
 * org.apache.hadoop.hbase.client.Put (its Mutation's row and family map). The engine also carries a
 * delete's markers and an increment's new value in one, where HBase has Delete and Increment: the same
 * Mutation with the same family map.
 *
 * <p>What it costs per put, as in HBase: its own copy of the row ({@code Put(byte[] row)} copies what it
 * is given), a TreeMap from family (a cloned byte[] per cell, as {@code Put.add(Cell)} clones it) to an
 * ArrayList of the cells. The cells themselves are not copied: they stay what the request's
 * {@code CellDecoder} made (heap copies on 1.x, views over the request buffer on 2.x).
 *
 * <p>Made by {@link PutDecoder#toPuts}; read by the write path ({@link WriteBatches}: families checked per
 * family, timestamps stamped per cell of the map; {@link Region#preAppend}: the cells into the WALEdit).
 *
 * <p>Thread safety: built on one thread, then handed over (the write path's queues publish it).
 */
public final class Put {
    private final byte[] row;
    private final NavigableMap<byte[], List<Cell>> familyMap = new TreeMap<>(Arrays::compareUnsigned);
    private int size;

    /** A put of {@code row}; keeps its own copy (as HBase's Put does). */
    public Put(byte[] row) {
        this.row = row.clone();
    }

    /**
     * Adds {@code cell} under its family (HBase's Put.add(Cell): the family cloned for the map's key).
     *
     * @throws IllegalArgumentException when the cell's row is not this put's row
     */
    public Put add(Cell cell) {
        if (CellComparator.compareRow(cell, row) != 0) {
            throw new IllegalArgumentException("the cell's row is not the put's row: " + cell);
        }
        byte[] family = cell.family();
        List<Cell> list = familyMap.get(family);
        if (list == null) {
            list = new ArrayList<>();
            familyMap.put(family, list);
        }
        list.add(cell);
        size++;
        return this;
    }

    /** The row (the put's own array: do not modify). */
    public byte[] row() {
        return row;
    }

    /** Family -> the cells of that family, in the order they were added; the lists are the put's own. */
    public NavigableMap<byte[], List<Cell>> familyCellMap() {
        return familyMap;
    }

    /** Cells in the put. */
    public int size() {
        return size;
    }

    @Override
    public String toString() {
        return "Put{row=" + new String(row, StandardCharsets.UTF_8) + ", cells=" + size + "}";
    }
}
