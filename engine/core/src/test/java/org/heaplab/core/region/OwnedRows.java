package org.heaplab.core.region;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/** Tests' short form of a get: every live column of a row as heap KeyValues the test may keep after the scope. */
final class OwnedRows {
    private OwnedRows() {
    }

    static List<KeyValue> get(OnlineRegions o, String table, byte[] row) throws IOException {
        try (ReadScope scope = new ReadScope()) {
            List<Cell> cells = o.get(table, row, List.of(), scope);
            List<KeyValue> out = new ArrayList<>(cells.size());
            for (Cell c : cells) {
                out.add(c.toOwnKeyValue());
            }
            return out;
        }
    }
}
