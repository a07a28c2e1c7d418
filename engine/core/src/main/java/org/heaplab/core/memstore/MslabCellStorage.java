package org.heaplab.core.memstore;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.Cells;
import org.heaplab.core.cell.KeyValue;

/**
 * HBase 2.x cell storage: the MemStore-Local Allocation Buffer. Cells are copied into 2 MB chunks
 * (hbase.hregion.memstore.mslab.chunksize) from a shared {@link ChunkPool} and kept as KeyValue views
 * over the chunk's byte[], so the old generation holds a few large arrays instead of one small array
 * per cell, and a flushed memstore's chunks are reused instead of becoming garbage. A cell larger than
 * hbase.hregion.memstore.mslab.max.allocation (256 KB) is copied into its own heap array instead.
 *
 * <pre>
 *   current chunk: [cell|cell|cell|....free....]    allocate = CAS on the bump pointer;
 *                                        ^ next     too full: CAS in a fresh chunk from the pool
 * </pre>
 *
 * <p>Ownership: the stored KeyValues are views into chunks this storage owns until {@link #close};
 * then the chunks go back to the pool and are overwritten by other memstores. Readers must therefore
 * {@link #export} (copy out) what they keep, and the memstore calls close only when no reader is left.
 *
 * <p>Pitfalls: a cell that does not fit the current chunk's rest wastes that rest; replaced cells
 * (same key written twice) keep their chunk space until the flush.
 *
 * <p>Thread safety: {@link #copyIn} is lock-free and safe from many writers; {@link #close} must not
 * race with copyIn (the memstore is a snapshot by then, no writer adds to it).
 */
public final class MslabCellStorage implements CellStorage {
    private final ChunkPool pool;
    private final int maxAllocation;
    private final AtomicReference<ChunkPool.Chunk> current = new AtomicReference<>();
    private final ConcurrentLinkedQueue<ChunkPool.Chunk> chunks = new ConcurrentLinkedQueue<>();

    public MslabCellStorage(ChunkPool pool, int maxAllocation) {
        if (maxAllocation > pool.chunkSize()) {
            throw new IllegalArgumentException("max allocation " + maxAllocation + " exceeds the chunk size " + pool.chunkSize());
        }
        this.pool = pool;
        this.maxAllocation = maxAllocation;
    }

    @Override
    public KeyValue copyIn(Cell cell) {
        int len = cell.getSerializedLength();
        if (len > maxAllocation) {
            return cell.toOwnKeyValue();
        }
        while (true) {
            ChunkPool.Chunk c = current.get();
            if (c != null) {
                int at = c.allocate(len);
                if (at >= 0) {
                    cell.copyTo(c.data, at);
                    return new KeyValue(c.data, at, len);
                }
            }
            ChunkPool.Chunk fresh = pool.take();
            if (current.compareAndSet(c, fresh)) {
                chunks.add(fresh);
            } else {
                pool.give(fresh); // another writer rolled first: use its chunk
            }
        }
    }

    @Override
    public KeyValue export(KeyValue stored) {
        return Cells.ownArray(stored);
    }

    /** Chunks this storage holds. */
    public int chunkCount() {
        return chunks.size();
    }

    @Override
    public void close() {
        ChunkPool.Chunk c;
        while ((c = chunks.poll()) != null) {
            pool.give(c);
        }
        current.set(null);
    }

    /** One MslabCellStorage per memstore over one shared pool. */
    public static CellStorage.Factory factory(ChunkPool pool, int maxAllocation) {
        return new CellStorage.Factory() {
            @Override
            public CellStorage create() {
                return new MslabCellStorage(pool, maxAllocation);
            }

            @Override
            public String describe() {
                return "MslabCellStorage (on-heap chunks of " + pool.chunkSize() + " bytes, pool of at most "
                    + pool.maxPooled() + " chunks, cells over " + maxAllocation + " bytes on the heap)";
            }
        };
    }
}
