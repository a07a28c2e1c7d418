package org.heaplab.core.memstore;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;

/**
 * Merges sorted segment iterators into one sorted iterator; of cells with the same key the one from
 * the newest segment (lowest rank) is returned and the others are skipped, as a newer write of a key
 * replaces the older one within a segment.
 */
final class SegmentMerger implements Iterator<Cell> {
    private record Head(Cell cell, int rank, Iterator<Cell> rest) {
    }

    private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> {
        int c = CellComparator.INSTANCE.compare(a.cell, b.cell);
        return c != 0 ? c : Integer.compare(a.rank, b.rank);
    });

    private SegmentMerger(List<Iterator<Cell>> newestFirst) {
        for (int i = 0; i < newestFirst.size(); i++) {
            advance(newestFirst.get(i), i);
        }
    }

    /** One iterator over {@code newestFirst} (a single iterator is returned as it is). */
    static Iterator<Cell> merge(List<Iterator<Cell>> newestFirst) {
        return newestFirst.size() == 1 ? newestFirst.get(0) : new SegmentMerger(newestFirst);
    }

    private void advance(Iterator<Cell> it, int rank) {
        if (it.hasNext()) {
            heads.add(new Head(it.next(), rank, it));
        }
    }

    @Override
    public boolean hasNext() {
        return !heads.isEmpty();
    }

    @Override
    public Cell next() {
        Head h = heads.poll();
        if (h == null) {
            throw new NoSuchElementException();
        }
        advance(h.rest, h.rank);
        while (!heads.isEmpty() && CellComparator.INSTANCE.compare(heads.peek().cell, h.cell) == 0) {
            Head older = heads.poll(); // same key in an older segment: replaced
            advance(older.rest, older.rank);
        }
        return h.cell;
    }
}
