package org.heaplab.core.region;

import java.io.IOException;
import java.util.List;
import java.util.PriorityQueue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.CellCursor;

/**
 * Merges sorted cursors (memstore, snapshot, store files) into one sorted cursor (HBase's KeyValueHeap).
 * Between cells with equal keys the newer source (lower rank) comes first, which is what
 * {@link RowMerger.Resolver} needs to let the newer write win. Nothing is dropped here: resolving
 * versions and deletes is the resolver's job.
 *
 * <p>Not thread safe; one scan batch uses it.
 */
final class CursorMerger implements CellCursor {
    private record Head(CellCursor cursor, int rank) {
    }

    private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> {
        int c = CellComparator.INSTANCE.compare(a.cursor.peek(), b.cursor.peek());
        return c != 0 ? c : Integer.compare(a.rank, b.rank);
    });

    /** @param newestFirst the sources, newest first (rank = position) */
    CursorMerger(List<CellCursor> newestFirst) {
        for (int i = 0; i < newestFirst.size(); i++) {
            if (newestFirst.get(i).peek() != null) {
                heads.add(new Head(newestFirst.get(i), i));
            }
        }
    }

    @Override
    public Cell peek() {
        Head h = heads.peek();
        return h == null ? null : h.cursor.peek();
    }

    @Override
    public void advance() throws IOException {
        Head h = heads.poll();
        if (h == null) {
            return;
        }
        h.cursor.advance();
        if (h.cursor.peek() != null) {
            heads.add(h); // re-sorted by its new current cell
        }
    }
}
