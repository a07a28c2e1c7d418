package org.heaplab.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.region.OnlineRegions;

/**
 * Checks a DELETE call's cells before they go through the normal put path (WAL, memstore). Markers, as
 * HBase's Delete builds them:
 * <ul>
 *   <li>DELETE_FAMILY (Delete of a row, or addFamily): every column of the family up to its timestamp;</li>
 *   <li>DELETE_COLUMN (addColumns): every version of one column up to its timestamp;</li>
 *   <li>DELETE (addColumn): one version of one column. Without a timestamp (LATEST_TIMESTAMP) it means
 *       the newest version, so the server stamps the newest version's timestamp (HBase does the same
 *       lookup); a column with no version drops the marker.</li>
 * </ul>
 * A LATEST_TIMESTAMP on the other markers becomes the server's time in the put path. A DELETE_FAMILY
 * marker with an empty family (the client's whole-row Delete) is given the table's family.
 */
final class Deletes {
    private Deletes() {
    }

    /**
     * The markers to write.
     *
     * @throws IllegalArgumentException when a cell is not a delete marker
     */
    static List<Cell> prepare(OnlineRegions regions, String table, List<? extends Cell> cells) throws IOException {
        List<Cell> out = new ArrayList<>(cells.size());
        for (Cell c : cells) {
            KeyValue.Type t = c.type();
            switch (t) {
                case DELETE_FAMILY -> out.add(c.familyLength() > 0 ? c : KeyValue.create(c.row(),
                    regions.describe(table).family(), new byte[0], c.timestamp(), t, new byte[0]));
                case DELETE_COLUMN, DELETE_FAMILY_VERSION -> out.add(c);
                case DELETE -> {
                    if (c.timestamp() != KeyValue.LATEST_TIMESTAMP) {
                        out.add(c);
                        continue;
                    }
                    try (ReadScope scope = new ReadScope()) {
                        long newest = Long.MIN_VALUE;
                        for (Cell v : regions.get(table, c.row(), List.of(c.qualifier()), scope)) {
                            newest = Math.max(newest, v.timestamp());
                        }
                        if (newest != Long.MIN_VALUE) {
                            out.add(c.withTimestamp(newest));
                        }
                    }
                }
                default -> throw new IllegalArgumentException("DELETE carries only delete markers (Delete, DeleteColumn,"
                    + " DeleteFamily), got a cell of type " + t);
            }
        }
        return out;
    }
}
