package org.heaplab.core.memstore;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.Cells;
import org.heaplab.core.cell.KeyValue;

/**
 * HBase 2.x cell storage: the MemStore-Local Allocation Buffer. Cells are copied into chunks
 * (hbase.hregion.memstore.mslab.chunksize, 2 MB) taken from the server's {@link ChunkPool} and kept as
 * views over the chunk: {@link KeyValue}s over a heap chunk's byte[], {@link ByteBufferKeyValue}s over
 * an off-heap chunk's direct buffer. The old generation holds a few large arrays (or nothing, off heap)
 * instead of one small array per cell, and a flushed memstore's chunks are reused instead of becoming
 * garbage. A cell larger than hbase.hregion.memstore.mslab.max.allocation (256 KB) gets a heap chunk of
 * its own (a jumbo chunk), so every cell lives in some chunk of this storage, which the flat
 * {@link CellChunkMap} index relies on.
 *
 * <pre>
 *   current chunk: [cell|cell|cell|....free....]    allocate = CAS on the bump pointer;
 *                                        ^ next     too full: CAS in a fresh chunk from the pool
 * </pre>
 *
 * <p>Ownership: the stored cells are views into chunks this storage owns until {@link #close}; then
 * the chunks go back to the pool and are overwritten by other memstores. Readers must therefore
 * {@link #export} (copy out) what they keep, and the memstore calls close only when no reader is left.
 *
 * <p>Pitfalls: a cell that does not fit the current chunk's rest wastes that rest; replaced cells
 * (same key written twice) keep their chunk space until the flush.
 *
 * <p>Thread safety: {@link #copyIn} and {@link #allocateIndex} are lock-free and safe from many
 * writers; {@link #close} must not race with them (the memstore is a snapshot by then, no writer adds).
 */
public final class MslabCellStorage implements CellStorage {
    private final ChunkPool pool;
    private final int maxAllocation;
    private final AtomicReference<Chunk> current = new AtomicReference<>();
    /** Every chunk this storage holds, data and index, in the order taken; a chunk's position is its id. */
    private final List<Chunk> chunks = new CopyOnWriteArrayList<>();

    public MslabCellStorage(ChunkPool pool, int maxAllocation) {
        if (maxAllocation > pool.chunkSize()) {
            throw new IllegalArgumentException("max allocation " + maxAllocation + " exceeds the chunk size " + pool.chunkSize());
        }
        this.pool = pool;
        this.maxAllocation = maxAllocation;
    }

    @Override
    public Cell copyIn(Cell cell) {
        int len = cell.getSerializedLength();
        if (len > maxAllocation) {
            Chunk jumbo = pool.takeJumbo(len);
            chunks.add(jumbo);
            return jumbo.copyIn(cell, jumbo.allocate(len));
        }
        Allocation a = allocate(len);
        return a.chunk().copyIn(cell, a.offset());
    }

    /** Where {@link #allocate} reserved bytes. */
    record Allocation(Chunk chunk, int offset) {
    }

    /** Reserves {@code len} (at most a chunk) bytes in the current chunk, rolling to a fresh one when it is full. */
    private Allocation allocate(int len) {
        while (true) {
            Chunk c = current.get();
            if (c != null) {
                int at = c.allocate(len);
                if (at >= 0) {
                    return new Allocation(c, at);
                }
            }
            Chunk fresh = pool.take();
            chunks.add(fresh); // before it is current: a flattening sees the chunk of every cell put so far
            if (!current.compareAndSet(c, fresh)) {
                chunks.remove(fresh);
                pool.give(fresh); // another writer rolled first: use its chunk
            }
        }
    }

    /**
     * Bytes for a piece of a flat index, bump-allocated in the same chunks as the cells (so a small
     * index does not hold a whole chunk); returned to the pool with the chunks on close.
     */
    Allocation allocateIndex(int bytes) {
        if (bytes > pool.chunkSize()) {
            throw new IllegalArgumentException("index piece of " + bytes + " bytes exceeds the chunk size");
        }
        return allocate(bytes);
    }

    /**
     * The chunks held now and, for each chunk's memory, its id (position): what a flat index needs to
     * turn a cell view back into (chunk id, offset).
     */
    ChunkDirectory directory() {
        Chunk[] all = chunks.toArray(new Chunk[0]);
        Map<Object, Integer> ids = new IdentityHashMap<>();
        for (int i = 0; i < all.length; i++) {
            ids.put(all[i].memory(), i);
        }
        return new ChunkDirectory(all, ids);
    }

    /** Chunks by id, and the id of a chunk's memory. */
    record ChunkDirectory(Chunk[] chunks, Map<Object, Integer> ids) {
        /** The id of the chunk under {@code cell} (a view this storage made). */
        int idOf(Cell cell) {
            Object memory = cell instanceof KeyValue kv ? kv.getBuffer() : ((ByteBufferKeyValue) cell).buffer();
            Integer id = ids.get(memory);
            if (id == null) {
                throw new IllegalStateException("cell is not in a chunk of this memstore: " + cell);
            }
            return id;
        }
    }

    @Override
    public KeyValue export(Cell stored) {
        return stored instanceof KeyValue kv ? Cells.ownArray(kv) : stored.toOwnKeyValue();
    }

    public ChunkPool pool() {
        return pool;
    }

    /** Chunks this storage holds (data, jumbo and index chunks). */
    public int chunkCount() {
        return chunks.size();
    }

    @Override
    public void close() {
        current.set(null);
        for (Chunk c : chunks) {
            pool.give(c);
        }
        chunks.clear();
    }

    /** One MslabCellStorage per memstore over one shared pool. */
    public static Factory factory(ChunkPool pool, int maxAllocation) {
        return new Factory(pool, maxAllocation);
    }

    /** Makes MslabCellStorages, typed as such: the compacting index flattens into their chunks. */
    public static final class Factory implements CellStorage.Factory {
        private final ChunkPool pool;
        private final int maxAllocation;

        private Factory(ChunkPool pool, int maxAllocation) {
            this.pool = pool;
            this.maxAllocation = maxAllocation;
        }

        @Override
        public MslabCellStorage create() {
            return new MslabCellStorage(pool, maxAllocation);
        }

        @Override
        public String describe() {
            return "MslabCellStorage (" + pool.describe() + "; cells over " + maxAllocation
                + " bytes in their own heap chunk)";
        }

        @Override
        public ChunkPool pool() {
            return pool;
        }
    }
}
