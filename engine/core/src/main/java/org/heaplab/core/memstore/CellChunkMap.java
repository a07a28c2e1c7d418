package org.heaplab.core.memstore;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;

/**
 * An immutable flattened segment (HBase's CellChunkImmutableSegment with a CellChunkMap, HBASE-16421):
 * the cells stay where they are in the memstore's MSLAB chunks, and the index is a sorted array of
 * fixed-size entries written into the same chunks, so it is off heap exactly when the data is. No object per cell: a cell object is rebuilt from its entry when read.
 *
 * <pre>
 *   entry (12 bytes): int chunkId | int offset | int length      chunkId = position in the memstore's
 *                                                                 chunk directory at flattening time
 *   index piece (at most 64 KB, bump-allocated in a chunk like a cell): [entry i][entry i+1] ...
 * </pre>
 * HBase's entry also holds a long sequence id (20 bytes); this engine's memstore cells carry none.
 * Look-ups are binary searches over the entries; iteration walks them in order.
 *
 * <p>Ownership: the index pieces live in the memstore's {@link MslabCellStorage} chunks and go back to
 * the pool with them. (HBase takes index chunks of their own, hbase.hregion.memstore.mslab.indexchunksize;
 * pieces in the data chunks waste less when segments are small.) Thread safety: immutable after {@link #flatten}; safe from any thread.
 */
final class CellChunkMap implements Segment {
    static final int ENTRY_BYTES = 12;
    /** Largest index piece: 64 KB (5461 entries), or a chunk if chunks are smaller. */
    static final int MAX_PIECE_BYTES = 64 * 1024;

    private final Chunk[] dataChunks;
    private final Chunk[] pieceChunks;
    private final int[] pieceOffsets;
    private final int entriesPerPiece;
    private final int count;

    private CellChunkMap(Chunk[] dataChunks, Chunk[] pieceChunks, int[] pieceOffsets, int entriesPerPiece, int count) {
        this.dataChunks = dataChunks;
        this.pieceChunks = pieceChunks;
        this.pieceOffsets = pieceOffsets;
        this.entriesPerPiece = entriesPerPiece;
        this.count = count;
    }

    /**
     * Flattens {@code frozen} (no writer adds to it any more) whose cells live in {@code storage}'s
     * chunks: one entry per cell, in order.
     */
    static CellChunkMap flatten(SkipListSegment frozen, MslabCellStorage storage) {
        int perPiece = Math.min(MAX_PIECE_BYTES, storage.pool().chunkSize()) / ENTRY_BYTES;
        int count = frozen.cellCount();
        int pieces = (count + perPiece - 1) / perPiece;
        Chunk[] pieceChunks = new Chunk[pieces];
        int[] pieceOffsets = new int[pieces];
        for (int i = 0; i < pieces; i++) {
            MslabCellStorage.Allocation a = storage.allocateIndex(Math.min(perPiece, count - i * perPiece) * ENTRY_BYTES);
            pieceChunks[i] = a.chunk();
            pieceOffsets[i] = a.offset();
        }
        // BEGIN SOLUTION chunkmap-flatten
        MslabCellStorage.ChunkDirectory dir = storage.directory(); // after the pieces: they may have rolled a chunk
        int n = 0;
        for (Iterator<Cell> it = frozen.iterator(); it.hasNext(); n++) {
            Cell c = it.next();
            ByteBuffer b = pieceChunks[n / perPiece].buffer();
            int at = pieceOffsets[n / perPiece] + (n % perPiece) * ENTRY_BYTES;
            b.putInt(at, dir.idOf(c));
            b.putInt(at + 4, c instanceof KeyValue kv ? kv.getOffset() : ((ByteBufferKeyValue) c).offset());
            b.putInt(at + 8, c.getSerializedLength());
        }
        if (n != count) {
            throw new IllegalStateException("segment changed while being flattened: " + count + " cells, then " + n);
        }
        return new CellChunkMap(dir.chunks(), pieceChunks, pieceOffsets, perPiece, count);
        // END SOLUTION chunkmap-flatten
        // STUB chunkmap-flatten: throw new UnsupportedOperationException("not implemented: labs/08-memstore-memory/README.md, Build it yourself (chunkmap-flatten)");
    }

    /** The cell of entry {@code i}, as a new view into its data chunk. */
    private Cell cell(int i) {
        // BEGIN SOLUTION chunkmap-flatten
        int piece = i / entriesPerPiece;
        ByteBuffer b = pieceChunks[piece].buffer();
        int at = pieceOffsets[piece] + (i % entriesPerPiece) * ENTRY_BYTES;
        return dataChunks[b.getInt(at)].cellAt(b.getInt(at + 4), b.getInt(at + 8));
        // END SOLUTION chunkmap-flatten
        // STUB chunkmap-flatten: throw new UnsupportedOperationException("not implemented: labs/08-memstore-memory/README.md, Build it yourself (chunkmap-flatten)");
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

    /** Index pieces this map uses. */
    int indexPieces() {
        return pieceChunks.length;
    }
}
