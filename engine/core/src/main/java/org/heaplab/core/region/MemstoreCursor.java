package org.heaplab.core.region;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellCursor;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.memstore.Memstore;

/**
 * A scan's cursor over one memstore (active or snapshot), from a start row to a stop row, a whole row
 * at a time: it finds the next row, then copies all its cells out under that row's read lock, so a scan
 * sees all or none of a put's cells of a row (the put holds the row's write lock while it applies).
 *
 * <p>Cells are heap copies ({@link Memstore#getRow} exports them): MSLAB chunks may go back to the pool
 * once the memstore is flushed and released, while the scan's rows live until its response is written.
 * That is one copy per memstore cell read; store-file cells are not copied (see {@link Region#scan}).
 *
 * <p>The caller holds a reference on the memstore ({@link Memstore#tryRetain}) while using this cursor.
 * Not thread safe.
 */
final class MemstoreCursor implements CellCursor {
    private final Memstore memstore;
    private final Function<byte[], Lock> rowLock;
    private final byte[] stopRow;
    private final List<KeyValue> row = new ArrayList<>();
    private int at;
    /** Where the next row starts (null: no more rows). */
    private byte[] next;

    /**
     * @param rowLock the row's read lock, or null for a snapshot (no writer adds to it any more)
     * @param stopRow exclusive; empty: no end
     */
    MemstoreCursor(Memstore memstore, byte[] startRow, byte[] stopRow, Function<byte[], Lock> rowLock) {
        this.memstore = memstore;
        this.rowLock = rowLock;
        this.stopRow = stopRow;
        this.next = startRow;
        fill();
    }

    private void fill() {
        row.clear();
        at = 0;
        while (row.isEmpty() && next != null) {
            byte[] r = memstore.firstRowAtOrAfter(next);
            if (r == null || (stopRow.length > 0 && Arrays.compareUnsigned(r, stopRow) >= 0)) {
                next = null;
                return;
            }
            Lock lock = rowLock == null ? null : rowLock.apply(r);
            if (lock != null) {
                lock.lock();
            }
            try {
                memstore.getRow(r, row);
            } finally {
                if (lock != null) {
                    lock.unlock();
                }
            }
            next = successor(r);
        }
    }

    /** The smallest row after {@code row}: row + 0x00. */
    static byte[] successor(byte[] row) {
        return Arrays.copyOf(row, row.length + 1);
    }

    @Override
    public Cell peek() {
        return at < row.size() ? row.get(at) : null;
    }

    @Override
    public void advance() {
        if (at < row.size()) {
            at++;
        }
        if (at >= row.size()) {
            fill();
        }
    }
}
