package org.heaplab.core.cache;

import java.util.Locale;

/**
 * What a cached block holds. A CombinedBlockCache keeps the meta blocks (index and bloom) in its on-heap
 * L1 and the data blocks in its off-heap L2, as HBase does; metrics are kept per type.
 */
public enum BlockType {
    /** Cells of a store file, encoded with the family's data block encoding. */
    DATA,
    /** A leaf block of a store file's multi-level block index. */
    LEAF_INDEX,
    /** A chunk of a store file's row bloom filter. */
    BLOOM;

    /** True for DATA; false for the meta blocks (index, bloom). */
    public boolean isData() {
        return this == DATA;
    }

    /** The name used in metrics JSON: data, leaf_index, bloom. */
    public String metricName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
