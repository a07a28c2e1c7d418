package org.heaplab.core.storefile;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A store file's multi-level block index as a reader uses it (layout: {@link IndexBlock},
 * {@link BlockIndexWriter}): the root level lives in memory from open; each lower level is an INDEX
 * block read through the block cache (cached as LEAF_INDEX) by the reader's {@link Loader}.
 *
 * <p>Immutable; safe to share between threads (each lookup makes its own {@link Cursor}).
 */
public final class BlockIndex {
    /** Loads the payload of a non-root index block (through the cache; a heap buffer the caller may keep). */
    @FunctionalInterface
    interface Loader {
        ByteBuffer load(BlockLocation location) throws IOException;
    }

    private final IndexBlock root;
    private final int levels;
    private final int dataBlockCount;

    BlockIndex(IndexBlock root, int levels, int dataBlockCount) {
        this.root = root;
        this.levels = levels;
        this.dataBlockCount = dataBlockCount;
    }

    /** Levels including the root: 1 when the root names the data blocks directly. */
    public int levels() {
        return levels;
    }

    public int blockCount() {
        return dataBlockCount;
    }

    public int rootEntries() {
        return root.count();
    }

    /**
     * A cursor on the data block where a read of {@code row} starts: the last block whose first row is
     * before {@code row} (the row may begin in it), or the first block. Null for a file without blocks.
     */
    Cursor seek(byte[] row, Loader loader) throws IOException {
        if (root.count() == 0) {
            return null;
        }
        Cursor c = new Cursor(loader);
        IndexBlock block = root;
        for (int level = 0; level < levels; level++) {
            int i = block.searchBefore(row);
            c.path[level] = block;
            c.pos[level] = i;
            if (level + 1 < levels) {
                block = new IndexBlock(loader.load(block.location(i)));
            }
        }
        return c;
    }

    /** A cursor on the first data block, or null for a file without blocks. */
    Cursor first(Loader loader) throws IOException {
        return seek(new byte[0], loader);
    }

    /**
     * A position on one data block, walking the levels: {@link #next} moves to the following data block,
     * loading the next leaf (and the index blocks above it) when the current one is used up. Holds heap
     * views of index blocks only (no cache references). Not thread safe.
     */
    final class Cursor {
        private final Loader loader;
        private final IndexBlock[] path = new IndexBlock[levels];
        private final int[] pos = new int[levels];

        private Cursor(Loader loader) {
            this.loader = loader;
        }

        private int leaf() {
            return levels - 1;
        }

        BlockLocation location() {
            return path[leaf()].location(pos[leaf()]);
        }

        /** Compares the current data block's first row with {@code row}. */
        int compareFirstRow(byte[] row) {
            return path[leaf()].compareRow(pos[leaf()], row);
        }

        /** Moves to the next data block; false at the end of the file. */
        boolean next() throws IOException {
            int level = leaf();
            while (level >= 0 && pos[level] + 1 >= path[level].count()) {
                level--;
            }
            if (level < 0) {
                return false;
            }
            pos[level]++;
            for (int l = level + 1; l < levels; l++) {
                path[l] = new IndexBlock(loader.load(path[l - 1].location(pos[l - 1])));
                pos[l] = 0;
            }
            return true;
        }
    }
}
