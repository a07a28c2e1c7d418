package org.heaplab.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.region.OnlineRegions;

/**
 * The storage engine's read API as the server uses it. TEMPORARY bridge over the issue-3
 * {@code OnlineRegions.get(table, row)} until the region helper's read API lands; then each method
 * calls OnlineRegions directly.
 */
final class Reads {
    private static final Lock[] LOCKS = new Lock[1024];

    static {
        for (int i = 0; i < LOCKS.length; i++) {
            LOCKS[i] = new ReentrantLock();
        }
    }

    private Reads() {
    }

    static List<? extends Cell> get(OnlineRegions r, String table, byte[] row, List<byte[]> qualifiers, ReadScope scope)
        throws IOException {
        return only(r.get(table, row), qualifiers);
    }

    /** The cells of {@code qualifiers} (all of them when empty), in order; no copies. */
    static List<? extends Cell> only(List<? extends Cell> cells, List<byte[]> qualifiers) {
        if (qualifiers.isEmpty()) {
            return cells;
        }
        List<Cell> out = new ArrayList<>(qualifiers.size());
        for (Cell c : cells) {
            byte[] q = c.qualifier();
            for (byte[] wanted : qualifiers) {
                if (Arrays.equals(q, wanted)) {
                    out.add(c);
                    break;
                }
            }
        }
        return out;
    }

    static List<? extends List<? extends Cell>> multiGet(OnlineRegions r, String table, List<byte[]> rows, ReadScope scope)
        throws IOException {
        List<List<? extends Cell>> out = new ArrayList<>(rows.size());
        for (byte[] row : rows) {
            out.add(r.get(table, row));
        }
        return out;
    }

    /** One scan batch: rows, and the next start row (null when done). */
    record Batch(List<? extends List<? extends Cell>> rows, byte[] nextStartRow) {
    }

    static Batch scan(OnlineRegions r, String table, byte[] startRow, byte[] stopRow, int maxRows, ReadScope scope)
        throws IOException {
        throw new UnsupportedOperationException("scan needs the region read API (not landed yet)");
    }

    static Lock incrementLock(OnlineRegions r, String table, byte[] row) {
        return LOCKS[Math.floorMod(31 * table.hashCode() + Arrays.hashCode(row), LOCKS.length)];
    }
}
