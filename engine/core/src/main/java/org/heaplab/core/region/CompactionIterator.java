package org.heaplab.core.region;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.storefile.StoreFileReader;

/**
 * The output of a major compaction as one sorted stream: a k-way merge of the input files, gathered a
 * row at a time and resolved by {@link RowMerger} (newest version per column, deletes applied and
 * dropped). Holds one row of cells at a time. Read errors surface as UncheckedIOException.
 *
 * <p>Thread safety: not thread safe; one compaction uses it.
 */
final class CompactionIterator implements Iterator<KeyValue> {
    private record Head(KeyValue kv, int rank, Iterator<KeyValue> rest) {
    }

    private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> {
        int c = CellComparator.INSTANCE.compare(a.kv, b.kv);
        return c != 0 ? c : Integer.compare(a.rank, b.rank);
    });
    private final int sources;
    private final ArrayDeque<KeyValue> ready = new ArrayDeque<>();

    /** @param inputsNewestFirst the files to merge, newest first (rank 0 wins ties) */
    CompactionIterator(List<StoreFileReader> inputsNewestFirst) {
        this.sources = inputsNewestFirst.size();
        for (int i = 0; i < sources; i++) {
            Iterator<KeyValue> it = inputsNewestFirst.get(i).scanner();
            if (it.hasNext()) {
                heads.add(new Head(it.next(), i, it));
            }
        }
    }

    @Override
    public boolean hasNext() {
        while (ready.isEmpty() && !heads.isEmpty()) {
            List<List<KeyValue>> row = new ArrayList<>();
            for (int i = 0; i < sources; i++) {
                row.add(new ArrayList<>());
            }
            KeyValue first = heads.peek().kv;
            while (!heads.isEmpty() && CellComparator.compareRows(heads.peek().kv, first) == 0) {
                Head h = heads.poll();
                row.get(h.rank).add(h.kv);
                if (h.rest.hasNext()) {
                    heads.add(new Head(h.rest.next(), h.rank, h.rest));
                }
            }
            ready.addAll(RowMerger.merge(row));
        }
        return !ready.isEmpty();
    }

    @Override
    public KeyValue next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return ready.poll();
    }
}
