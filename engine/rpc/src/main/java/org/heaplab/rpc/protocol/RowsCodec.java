package org.heaplab.rpc.protocol;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * Several rows in one response (MULTI_GET, SCAN): the params carry how many cells each row has, the
 * cell block carries every row's cells back to back in the same order.
 *
 * <pre>
 *   params: int rowCount, rowCount x int cellCount      (a row with 0 cells: absent / nothing left)
 *   cells:  row 0's cells, row 1's cells, ...
 * </pre>
 */
public final class RowsCodec {
    /** Most rows one response may announce. */
    public static final int MAX_ROWS = 1_000_000;

    private RowsCodec() {
    }

    public static void writeCounts(ParamWriter w, List<? extends List<? extends Cell>> rows) {
        w.writeInt(rows.size());
        for (List<? extends Cell> row : rows) {
            w.writeInt(row.size());
        }
    }

    /** The cell block as one flat list (the order the counts describe). */
    public static List<Cell> flatten(List<? extends List<? extends Cell>> rows) {
        int n = 0;
        for (List<? extends Cell> row : rows) {
            n += row.size();
        }
        List<Cell> all = new ArrayList<>(n);
        rows.forEach(all::addAll);
        return all;
    }

    /**
     * Reads the counts and splits {@code cells} by them.
     *
     * @throws MalformedFrameException when the counts do not add up to the cells
     */
    public static List<List<KeyValue>> readRows(ParamReader r, List<KeyValue> cells, int callId) throws MalformedFrameException {
        int n = r.readCount(MAX_ROWS);
        List<List<KeyValue>> rows = new ArrayList<>(n);
        int pos = 0;
        for (int i = 0; i < n; i++) {
            int c = r.readCount(cells.size() - pos);
            rows.add(cells.subList(pos, pos + c));
            pos += c;
        }
        if (pos != cells.size()) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST,
                "row counts cover " + pos + " of " + cells.size() + " cells");
        }
        return rows;
    }
}
