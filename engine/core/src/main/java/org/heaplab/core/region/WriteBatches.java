package org.heaplab.core.region;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;

/**
 * A batch of cells on its way into a table, before any region sees it: checked against the table (family,
 * cell type), stamped with the server's time, and split by region. Both write paths
 * ({@link OnlineRegions#put} and {@link OnlineRegions#prepare}) start here.
 */
final class WriteBatches {
    private WriteBatches() {
    }

    /**
     * Checks families and types; stamps LATEST_TIMESTAMP with the current time. Returns {@code cells}
     * itself when every cell stayed the same object (views are stamped in place), else a new list.
     *
     * @throws NoSuchColumnFamilyException when a cell's family is not the table's
     * @throws IllegalArgumentException    when a cell's type is not Put or a Delete type
     */
    @SuppressWarnings("unchecked")
    static List<Cell> validate(OnlineTable t, List<? extends Cell> cells) throws NoSuchColumnFamilyException {
        byte[] family = t.descriptor().family();
        long now = System.currentTimeMillis();
        List<Cell> ready = null; // made only when a stamp returns a new cell (an immutable KeyValue)
        for (int i = 0; i < cells.size(); i++) {
            Cell kv = cells.get(i);
            if (!CellComparator.familyEquals(kv, family)) {
                throw new NoSuchColumnFamilyException(t.descriptor().name(),
                    new String(kv.family(), StandardCharsets.UTF_8));
            }
            KeyValue.Type type = kv.type();
            if (type == KeyValue.Type.MINIMUM || type == KeyValue.Type.MAXIMUM) {
                throw new IllegalArgumentException("cell type " + type + " cannot be written: " + kv);
            }
            Cell stamped = kv.timestamp() == KeyValue.LATEST_TIMESTAMP ? kv.withTimestamp(now) : kv;
            if (stamped != kv && ready == null) {
                ready = new ArrayList<>(cells.subList(0, i));
            }
            if (ready != null) {
                ready.add(stamped);
            }
        }
        return ready != null ? ready : (List<Cell>) cells;
    }

    /** The region of every cell when they all share one, else null (a row not held here refuses the batch). */
    static Region singleRegion(OnlineTable t, List<Cell> ready) throws NotServingRegionException {
        Region first = t.regionFor(ready.get(0));
        for (int i = 1; i < ready.size(); i++) {
            if (t.regionFor(ready.get(i)) != first) {
                return null;
            }
        }
        return first;
    }

    /** Splits a batch by region; a row this server does not hold refuses the whole batch before any write. */
    static Map<Region, List<Cell>> byRegion(OnlineTable t, List<Cell> ready) throws NotServingRegionException {
        Map<Region, List<Cell>> byRegion = new LinkedHashMap<>();
        for (Cell kv : ready) {
            Region region = t.regionFor(kv);
            byRegion.computeIfAbsent(region, r -> new ArrayList<>()).add(kv);
        }
        return byRegion;
    }
}
