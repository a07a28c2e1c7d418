package org.heaplab.core.cache.lru;

import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockPriority;

/**
 * A block held by the LruBlockCache (HBase's LruCachedBlock): the heap block, the heap it costs, its
 * priority group and its last access (a counter, not a clock: only the order matters).
 *
 * <p>Thread safety: priority and access are volatile hints written by readers and read by eviction.
 */
final class LruCachedBlock {
    /** Approximate heap bytes per cached block besides its data (block and buffer objects, key, map node). */
    static final int OVERHEAD = 112;

    final Block block;
    final long heapSize;
    private volatile BlockPriority priority;
    private volatile long lastAccess;

    LruCachedBlock(Block block, BlockPriority priority, long now) {
        this.block = block;
        this.heapSize = block.size() + OVERHEAD;
        this.priority = priority;
        this.lastAccess = now;
    }

    /** A read: SINGLE becomes MULTI; the block becomes the most recently used of its group. */
    void accessed(long now) {
        lastAccess = now;
        if (priority == BlockPriority.SINGLE) {
            priority = BlockPriority.MULTI;
        }
    }

    BlockPriority priority() {
        return priority;
    }

    long lastAccess() {
        return lastAccess;
    }
}
