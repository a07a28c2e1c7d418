package org.heaplab.core.storefile;

import java.io.IOException;
import org.heaplab.core.cell.KeyValue;

/**
 * Builds a file's row bloom filter while cells are appended (HBase's compound bloom filter): rows go
 * into the current chunk until it holds as many rows as io.storefile.bloom.block.size bytes allow at
 * io.storefile.bloom.error.rate; the full chunk is written as a BLOOM_CHUNK block right away (between
 * data blocks, as HBase's inline blocks) and named in the chunk index with its first row. The last
 * chunk is sized for the rows it actually got.
 */
final class BloomFilterWriter {
    private final double errorRate;
    private final int hashCount;
    private final long[] hashes;
    private final IndexBlock.Builder chunkIndex = new IndexBlock.Builder();
    private int rowsInChunk;
    private byte[] chunkFirstRow;

    BloomFilterWriter(double errorRate, int chunkBytes) {
        this.errorRate = errorRate;
        this.hashCount = BloomChunk.hashCount(errorRate);
        this.hashes = new long[BloomChunk.maxRows(chunkBytes, errorRate)];
    }

    int hashCount() {
        return hashCount;
    }

    /** Adds a row (each row once, in order). */
    void addRow(byte[] row, BlockSink sink) throws IOException {
        if (rowsInChunk == 0) {
            chunkFirstRow = row;
        }
        hashes[rowsInChunk++] = BloomChunk.hash(row);
        if (rowsInChunk == hashes.length) {
            writeChunk(sink);
        }
    }

    /** {@link #addRow(byte[], BlockSink)} of the row of {@code kv}, hashed in place (copied once per chunk). */
    void addRow(KeyValue kv, BlockSink sink) throws IOException {
        if (rowsInChunk == 0) {
            chunkFirstRow = kv.row();
        }
        hashes[rowsInChunk++] = BloomChunk.hash(kv.getBuffer(), kv.rowOffset(), kv.rowLength());
        if (rowsInChunk == hashes.length) {
            writeChunk(sink);
        }
    }

    private void writeChunk(BlockSink sink) throws IOException {
        byte[] bits = BloomChunk.build(hashes, rowsInChunk, errorRate, hashCount);
        chunkIndex.add(sink.write(BlockKind.BLOOM_CHUNK, bits), chunkFirstRow);
        rowsInChunk = 0;
    }

    /** Writes the last chunk; returns the chunk index (IndexBlock layout) for the file info. */
    byte[] finish(BlockSink sink) throws IOException {
        if (rowsInChunk > 0) {
            writeChunk(sink);
        }
        return chunkIndex.toBytes();
    }
}
