package org.heaplab.core.storefile;

import java.io.IOException;

/**
 * Builds the multi-level block index when a file is finished. Entries name data blocks (first row,
 * location); if they do not fit one index block of {@code maxIndexBlockBytes} (HBase's
 * hfile.index.block.max.size, 128 KB), they are cut into leaf index blocks written to the file, and
 * the next level indexes those leaves, and so on, until one level fits: that level is the root, kept
 * in memory by readers. Levels = 1 means the root names data blocks directly.
 *
 * <p>Unlike HBase, which writes leaf blocks inline as they fill, every index block is written after the
 * data section (the entries are small: about 30 bytes per 64 KB data block).
 */
final class BlockIndexWriter {
    private final int maxIndexBlockBytes;
    private IndexBlock.Builder dataEntries = new IndexBlock.Builder();

    record Written(BlockLocation root, int levels) {
    }

    BlockIndexWriter(int maxIndexBlockBytes) {
        this.maxIndexBlockBytes = maxIndexBlockBytes;
    }

    void addDataBlock(BlockLocation location, byte[] firstRow) {
        dataEntries.add(location, firstRow);
    }

    int dataBlockCount() {
        return dataEntries.count();
    }

    /** Writes the non-root levels (INDEX blocks) and the root (ROOT_INDEX block). */
    Written write(BlockSink sink) throws IOException {
        IndexBlock.Builder level = dataEntries;
        int levels = 1;
        while (level.encodedSize() > maxIndexBlockBytes && level.count() > 2) {
            IndexBlock.Builder parents = new IndexBlock.Builder();
            IndexBlock.Builder block = new IndexBlock.Builder();
            for (int i = 0; i < level.count(); i++) {
                byte[] row = level.row(i);
                // at least two entries per block, so every level is at most half the one below
                if (block.count() >= 2 && block.encodedSize() + IndexBlock.Builder.entrySize(row) > maxIndexBlockBytes) {
                    parents.add(sink.write(BlockKind.INDEX, block.toBytes()), block.firstRow());
                    block = new IndexBlock.Builder();
                }
                block.add(level.location(i), row);
            }
            parents.add(sink.write(BlockKind.INDEX, block.toBytes()), block.firstRow());
            level = parents;
            levels++;
        }
        BlockLocation root = sink.write(BlockKind.ROOT_INDEX, level.toBytes());
        dataEntries = null;
        return new Written(root, levels);
    }
}
