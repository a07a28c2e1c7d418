package org.heaplab.core.memstore;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.heaplab.core.cell.Cell;

/**
 * The compacting index with the BASIC policy and a CellChunkMap (hbase.hregion.compacting.memstore.type
 * = BASIC, hbase.hregion.compacting.memstore.index = CHUNK_MAP; HBase's CompactingMemStore,
 * HBASE-16417/16421). Writers add to an active {@link SkipListSegment}; once it holds more than the
 * in-memory flush threshold (hbase.memstore.inmemoryflush.threshold.factor x
 * hbase.hregion.memstore.flush.size) it is frozen and flattened into an immutable {@link CellChunkMap}:
 * the skip-list nodes and cell objects become garbage and the index is 12 bytes per cell in chunks
 * (off heap when the chunks are). Reads and the disk flush merge the active segment with the
 * flattened ones, newest first. BASIC never merges flattened segments with each other and never drops
 * versions in memory; the disk flush writes them all.
 *
 * <pre>
 *   put ──▶ active skip list ──(over threshold: freeze under the write lock)──▶ frozen skip list
 *                                                  ──(flatten, no lock)──▶ CellChunkMap  ┐ newest
 *                                                                          CellChunkMap  ┘ ... oldest
 * </pre>
 *
 * <p>Needs MSLAB: a CellChunkMap entry points into a chunk (checked at start-up, {@link Memstores}).
 * The in-memory flush runs in the writer that passed the threshold (HBase uses a pool thread): that
 * writer still holds the region's update lock, so a snapshot never overlaps a flattening.
 *
 * <p>Thread safety: writers put under this index's read lock; freezing the active segment takes the
 * write lock (a moment: a reference swap), so no put can land in a segment being flattened. Readers
 * take no lock: they read the segment list published in a volatile field, which always holds every
 * cell (the frozen skip list stays in it until its CellChunkMap replaces it).
 */
final class CompactingIndex implements MemstoreIndex {
    /** The segments: active first, then the immutable ones newest first. */
    private record State(SkipListSegment active, List<Segment> all) {
    }

    private final MslabCellStorage mslab;
    private final long inMemoryFlushThreshold;
    private final MemstoreCounters counters;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean flattening = new AtomicBoolean();
    private volatile State state;
    private volatile int flattened;

    CompactingIndex(MslabCellStorage mslab, long inMemoryFlushThreshold, MemstoreCounters counters) {
        this.mslab = mslab;
        this.inMemoryFlushThreshold = inMemoryFlushThreshold;
        this.counters = counters;
        SkipListSegment active = new SkipListSegment();
        this.state = new State(active, List.of(active));
    }

    @Override
    public Cell put(Cell stored) {
        Cell old;
        long activeSize;
        lock.readLock().lock();
        try {
            SkipListSegment active = state.active();
            old = active.put(stored);
            activeSize = active.heapSize();
        } finally {
            lock.readLock().unlock();
        }
        if (activeSize > inMemoryFlushThreshold && flattening.compareAndSet(false, true)) {
            try {
                flattenActive();
            } finally {
                flattening.set(false);
            }
        }
        return old;
    }

    /** The in-memory flush: freeze the active segment, flatten it, swap the flat one in. */
    private void flattenActive() {
        SkipListSegment frozen;
        lock.writeLock().lock();
        try {
            State s = state;
            if (s.active().heapSize() <= inMemoryFlushThreshold) {
                return; // another writer flattened it meanwhile
            }
            frozen = s.active();
            SkipListSegment fresh = new SkipListSegment();
            List<Segment> all = new ArrayList<>(s.all().size() + 1);
            all.add(fresh);
            all.addAll(s.all()); // the frozen one is still there, second: readers keep seeing its cells
            state = new State(fresh, List.copyOf(all));
        } finally {
            lock.writeLock().unlock();
        }
        CellChunkMap flat = CellChunkMap.flatten(frozen, mslab);
        lock.writeLock().lock();
        try {
            State s = state;
            List<Segment> all = new ArrayList<>(s.all());
            all.set(all.indexOf(frozen), flat);
            state = new State(s.active(), List.copyOf(all));
            flattened++;
        } finally {
            lock.writeLock().unlock();
        }
        counters.flattenedSegments.increment();
    }

    @Override
    public List<Segment> segments() {
        return state.all();
    }

    @Override
    public int flattenedSegments() {
        return flattened;
    }
}
