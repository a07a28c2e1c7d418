package org.heaplab.core.storefile;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A file's row bloom filter as a reader uses it: the chunk index in memory (from the file info), each
 * chunk a BLOOM_CHUNK block read through the block cache (cached as BLOOM) when a row falls in it.
 * No false negatives: a row that was added is always reported as maybe present.
 *
 * <p>Immutable; safe to share between threads.
 */
final class BloomFilter {
    /** Loads a chunk's bits (through the cache; used within the call only). */
    @FunctionalInterface
    interface ChunkLoader {
        ByteBuffer load(BlockLocation location) throws IOException;
    }

    private final int hashCount;
    private final IndexBlock chunks;

    BloomFilter(int hashCount, IndexBlock chunks) {
        this.hashCount = hashCount;
        this.chunks = chunks;
    }

    int chunkCount() {
        return chunks.count();
    }

    BlockLocation chunk(int i) {
        return chunks.location(i);
    }

    /** False only when {@code row} is certainly not in the file. */
    boolean mightContain(byte[] row, ChunkLoader loader) throws IOException {
        int i = chunks.searchAtOrBefore(row);
        if (i < 0) {
            return false; // before the first row of the file
        }
        return BloomChunk.mightContain(loader.load(chunks.location(i)), BloomChunk.hash(row), hashCount);
    }
}
