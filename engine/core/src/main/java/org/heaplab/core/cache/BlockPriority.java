package org.heaplab.core.cache;

/**
 * The eviction group of a cached block (HBase's BlockPriority). A block starts SINGLE, or MEMORY when its
 * family is IN_MEMORY, and a SINGLE block becomes MULTI when it is read again. Each group has a share of
 * the cache (single/multi/memory 25/50/25 %); eviction frees from the groups that overflow their share
 * first, so one large scan (many SINGLE blocks) cannot push out the blocks that are read again and again.
 */
public enum BlockPriority {
    SINGLE, MULTI, MEMORY;

    /** The priority after one more read: SINGLE becomes MULTI, the others stay. */
    public BlockPriority accessed() {
        return this == SINGLE ? MULTI : this;
    }

    public static BlockPriority initial(boolean inMemory) {
        return inMemory ? MEMORY : SINGLE;
    }
}
