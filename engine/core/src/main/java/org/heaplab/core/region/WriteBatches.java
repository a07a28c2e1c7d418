package org.heaplab.core.region;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * A batch of {@link Put}s on its way into a table, before any region sees it: checked against the table
 * (family, cell type), stamped with the server's time, and split by region. Both write paths
 * ({@link OnlineRegions#batchMutate} and {@link OnlineRegions#prepareBatch}) start here. As HBase's
 * HRegion does with a batch's family maps: the families are checked once per family of a put
 * (checkFamilies), the timestamps per cell of the map (updateCellTimestamps).
 */
final class WriteBatches {
    private WriteBatches() {
    }

    /**
     * Checks families and types; stamps LATEST_TIMESTAMP with the current time, in the puts' family maps
     * (a view is stamped in place; an immutable KeyValue is replaced in its list by the stamped one).
     *
     * @return the number of cells in the batch
     * @throws NoSuchColumnFamilyException when a put's family is not the table's
     * @throws IllegalArgumentException    when a cell's type is not Put or a Delete type
     */
    static int validate(OnlineTable t, List<Put> puts) throws NoSuchColumnFamilyException {
        byte[] family = t.descriptor().family();
        long now = System.currentTimeMillis();
        int cells = 0;
        for (int p = 0; p < puts.size(); p++) {
            for (Map.Entry<byte[], List<Cell>> e : puts.get(p).familyCellMap().entrySet()) {
                if (!Arrays.equals(e.getKey(), family)) {
                    throw new NoSuchColumnFamilyException(t.descriptor().name(),
                        new String(e.getKey(), StandardCharsets.UTF_8));
                }
                List<Cell> list = e.getValue();
                for (int i = 0; i < list.size(); i++) {
                    Cell kv = list.get(i);
                    KeyValue.Type type = kv.type();
                    if (type == KeyValue.Type.MINIMUM || type == KeyValue.Type.MAXIMUM) {
                        throw new IllegalArgumentException("cell type " + type + " cannot be written: " + kv);
                    }
                    if (kv.timestamp() == KeyValue.LATEST_TIMESTAMP) {
                        Cell stamped = kv.withTimestamp(now);
                        if (stamped != kv) {
                            list.set(i, stamped);
                        }
                    }
                }
                cells += list.size();
            }
        }
        return cells;
    }

    /** The region of every put when they all share one, else null (a row not held here refuses the batch). */
    static Region singleRegion(OnlineTable t, List<Put> puts) throws NotServingRegionException {
        Region first = t.regionFor(puts.get(0).row());
        for (int i = 1; i < puts.size(); i++) {
            if (t.regionFor(puts.get(i).row()) != first) {
                return null;
            }
        }
        return first;
    }

    /** Splits a batch by region; a row this server does not hold refuses the whole batch before any write. */
    static Map<Region, List<Put>> byRegion(OnlineTable t, List<Put> puts) throws NotServingRegionException {
        Map<Region, List<Put>> byRegion = new LinkedHashMap<>();
        for (Put p : puts) {
            Region region = t.regionFor(p.row());
            byRegion.computeIfAbsent(region, r -> new ArrayList<>()).add(p);
        }
        return byRegion;
    }
}
