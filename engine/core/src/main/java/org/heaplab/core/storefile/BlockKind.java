package org.heaplab.core.storefile;

import org.heaplab.core.cache.BlockType;

/**
 * What a store-file block holds, as its header's first byte says (codes are stable: files carry them),
 * and the cache type it is cached under (null: read once at open, kept by the reader, never cached).
 */
enum BlockKind {
    /** Cells in the family's data block encoding. */
    DATA(1, BlockType.DATA),
    /** A non-root level of the block index (leaf or intermediate): IndexBlock layout. */
    INDEX(2, BlockType.LEAF_INDEX),
    /** One chunk of the row bloom filter: a bit array. */
    BLOOM_CHUNK(3, BlockType.BLOOM),
    /** The root level of the block index: IndexBlock layout. */
    ROOT_INDEX(4, null),
    /** First and last row, bloom hash count and bloom chunk index. */
    FILE_INFO(5, null);

    final byte code;
    final BlockType cacheType;

    BlockKind(int code, BlockType cacheType) {
        this.code = (byte) code;
        this.cacheType = cacheType;
    }

    static BlockKind ofCode(byte code) {
        for (BlockKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return null;
    }
}
