package org.heaplab.core.memstore;

import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * HBase 1.x cell storage: every cell is its own heap KeyValue with its own byte[] (a copy unless the
 * cell already owns exactly its array, as the 1.x RPC decoder's copies do). Each one is a long-lived
 * object the old generation traces until the flush, then garbage.
 *
 * <p>Thread safety: stateless; safe from any thread.
 */
public final class PlainCellStorage implements CellStorage {
    /** Approximate heap bytes per cell besides its serialized bytes: KeyValue object, byte[] header, node. */
    public static final int CELL_HEAP_OVERHEAD = 80;

    public static final CellStorage.Factory FACTORY = new CellStorage.Factory() {
        private final PlainCellStorage instance = new PlainCellStorage();

        @Override
        public CellStorage create() {
            return instance;
        }

        @Override
        public String describe() {
            return "PlainCellStorage (each cell its own heap KeyValue)";
        }

        @Override
        public ChunkPool pool() {
            return null;
        }
    };

    @Override
    public KeyValue copyIn(Cell cell) {
        KeyValue kv = cell.toOwnKeyValue();
        if (kv != cell && !sameArray(cell, kv)) {
            MemstoreHeapBytes.add(kv.getLength()); // a copy of a view (2.x decoding without MSLAB)
        }
        return kv;
    }

    /** True when {@code kv} is a new KeyValue over the array {@code cell} already owned (the 1.x decoder's copy). */
    private static boolean sameArray(Cell cell, KeyValue kv) {
        return cell instanceof ByteBufferKeyValue b && b.buffer().hasArray() && b.buffer().array() == kv.getBuffer();
    }

    @Override
    public KeyValue export(Cell stored) {
        return (KeyValue) stored;
    }

    @Override
    public void close() {
        // the cells become garbage with the memstore
    }
}
