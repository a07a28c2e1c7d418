package org.heaplab.core.memstore;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;

/**
 * An immutable flattened segment (HBase's CellChunkImmutableSegment with a CellChunkMap, HBASE-16421):
 * the cells stay where they are in the memstore's MSLAB chunks, and the index is a sorted array of
 * fixed-size entries written into index chunks taken from the same pool, so it is off heap exactly when
 * the data chunks are. No object per cell: a cell object is rebuilt from its entry when read.
 *
 * <pre>
 *   entry (12 bytes): int chunkId | int offset | int length      chunkId = position in the memstore's
 *   index chunk:      [entry 0][entry 1] ... [entry n-1][unused]  chunk directory at flattening time
 * </pre>
 * HBase's entry also holds a long sequence id (20 bytes); this engine's memstore cells carry none.
 * Look-ups are binary searches over the entries; iteration walks them in order.
 *
 * <p>Ownership: the index chunks belong to the memstore's {@link MslabCellStorage} and go back to the
 * pool with its data chunks. Thread safety: immutable after {@link #flatten}; safe from any thread.
 */
final class CellChunkMap implements Segment {
    static final int ENTRY_BYTES = 12;

    private final Chunk[] dataChunks;
    private final Chunk[] indexChunks;
    private final int entriesPerChunk;
    private final int count;

    private CellChunkMap(Chunk[] dataChunks, Chunk[] indexChunks, int entriesPerChunk, int count) {
        this.dataChunks = dataChunks;
        this.indexChunks = indexChunks;
        this.entriesPerChunk = entriesPerChunk;
        this.count = count;
    }

    /**
     * Flattens {@code frozen} (no writer adds to it any more) whose cells live in {@code storage}'s
     * chunks: one entry per cell, in order.
     */
    static CellChunkMap flatten(SkipListSegment frozen, MslabCellStorage storage) {
        MslabCellStorage.ChunkDirectory dir = storage.directory();
        int perChunk = storage.pool().chunkSize() / ENTRY_BYTES;
        int count = frozen.cellCount();
        Chunk[] index = new Chunk[(count + perChunk - 1) / perChunk];
        for (int i = 0; i < index.length; i++) {
            index[i] = storage.takeIndexChunk();
        }
        int n = 0;
        for (Iterator<Cell> it = frozen.iterator(); it.hasNext(); n++) {
            Cell c = it.next();
            ByteBuffer b = index[n / perChunk].buffer();
            int at = (n % perChunk) * ENTRY_BYTES;
            b.putInt(at, dir.idOf(c));
            b.putInt(at + 4, c instanceof KeyValue kv ? kv.getOffset() : ((org.heaplab.core.cell.ByteBufferKeyValue) c).offset());
            b.putInt(at + 8, c.getSerializedLength());
        }
        if (n != count) {
            throw new IllegalStateException("segment changed while being flattened: " + count + " cells, then " + n);
        }
        return new CellChunkMap(dir.chunks(), index, perChunk, count);
    }

    /** The cell of entry {@code i}, as a new view into its data chunk. */
    private Cell cell(int i) {
        ByteBuffer b = indexChunks[i / entriesPerChunk].buffer();
        int at = (i % entriesPerChunk) * ENTRY_BYTES;
        return dataChunks[b.getInt(at)].cellAt(b.getInt(at + 4), b.getInt(at + 8));
    }

    /** The first entry whose cell is at or after {@code key} (count when none is). */
    private int lowerBound(Cell key) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (CellComparator.INSTANCE.compare(cell(mid), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public Iterator<Cell> iterator() {
        return from(0);
    }

    @Override
    public Iterator<Cell> tailIterator(Cell from) {
        return from(lowerBound(from));
    }

    private Iterator<Cell> from(int start) {
        return new Iterator<>() {
            private int i = start;

            @Override
            public boolean hasNext() {
                return i < count;
            }

            @Override
            public Cell next() {
                if (i >= count) {
                    throw new NoSuchElementException();
                }
                return cell(i++);
            }
        };
    }

    @Override
    public int cellCount() {
        return count;
    }

    /** Index chunks this map uses. */
    int indexChunkCount() {
        return indexChunks.length;
    }
}
