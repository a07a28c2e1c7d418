package org.heaplab.core.memstore;

import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * Where a memstore keeps the bytes of its cells: the switch between HBase 1.x's plain heap cells
 * ({@link PlainCellStorage}) and 2.x's MSLAB chunks ({@link MslabCellStorage}, on or off heap as its
 * {@link ChunkPool} is). One instance per memstore; the {@link Factory} is chosen once at start-up
 * from the configuration ({@link Memstores#fromConf}).
 *
 * <p>Ownership: {@link #copyIn} is the one copy of a cell on the write path: the cell passed in may be
 * a view over a request buffer that is reused after the call, the cell returned is the memstore's own
 * (a heap KeyValue, or a view into an MSLAB chunk). {@link #close} gives the storage's memory back
 * (MSLAB: chunks to the pool); the memstore calls it once no reader uses its cells any more, and no
 * cell returned by this storage may be read after.
 *
 * <p>Thread safety: {@link #copyIn} is called concurrently by every writer of the memstore.
 */
public interface CellStorage {
    /** Copies {@code cell} into this storage (or keeps it, when it already owns its heap array). */
    Cell copyIn(Cell cell);

    /**
     * A heap KeyValue safe to hand out of the memstore to a reader that may outlive the memstore's
     * memory: plain cells are returned as they are; MSLAB cells are copied out of the chunk.
     */
    KeyValue export(Cell stored);

    /** Releases the storage's memory; called once, when no reader uses the memstore's cells any more. */
    void close();

    /** Makes one storage per memstore. */
    interface Factory {
        CellStorage create();

        /** A name for the start-up log: which implementation, with its parameters. */
        String describe();

        /** The chunk pool behind the storages, or null (plain cells have none). */
        ChunkPool pool();
    }
}
