package org.heaplab.core.storefile;

/** Configuration keys of the store-file format (HBase's names) and their defaults. */
public final class StoreFileKeys {
    /** Largest index block (leaf, intermediate, root) in bytes before the index grows a level. */
    public static final String INDEX_BLOCK_MAX_SIZE = "hfile.index.block.max.size";
    public static final int DEFAULT_INDEX_BLOCK_MAX_SIZE = 128 * 1024;
    /** Target false-positive rate of row bloom filters. */
    public static final String BLOOM_ERROR_RATE = "io.storefile.bloom.error.rate";
    public static final double DEFAULT_BLOOM_ERROR_RATE = 0.01;
    /** Bytes of one bloom filter chunk (a BLOOM block): rows per chunk follow from the error rate. */
    public static final String BLOOM_BLOCK_SIZE = "io.storefile.bloom.block.size";
    public static final int DEFAULT_BLOOM_BLOCK_SIZE = 128 * 1024;

    private StoreFileKeys() {
    }
}
