package org.heaplab.core.storefile;

import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.io.StorageConstants;

/**
 * Server-wide sizes of the store-file format (per-family choices are in {@link StoreFileWriter.Options}).
 *
 * @param dataBlockSize a data block closes once its encoded cells reach this many bytes (64 KB; tests
 *                      use small blocks to get many of them)
 * @param indexBlockMaxBytes hfile.index.block.max.size
 * @param bloomErrorRate io.storefile.bloom.error.rate
 * @param bloomChunkBytes io.storefile.bloom.block.size
 */
public record StoreFileTuning(int dataBlockSize, int indexBlockMaxBytes, double bloomErrorRate, int bloomChunkBytes) {
    public static final StoreFileTuning DEFAULT = new StoreFileTuning(StorageConstants.DATA_BLOCK_SIZE,
        StoreFileKeys.DEFAULT_INDEX_BLOCK_MAX_SIZE, StoreFileKeys.DEFAULT_BLOOM_ERROR_RATE,
        StoreFileKeys.DEFAULT_BLOOM_BLOCK_SIZE);

    public StoreFileTuning {
        if (dataBlockSize < 1) {
            throw new IllegalArgumentException("data block size must be positive, got " + dataBlockSize);
        }
    }

    /** Reads the keys; a bad value is a one-line ConfigurationException naming the key. */
    public static StoreFileTuning fromConf(Configuration conf) {
        int index = conf.getInt(StoreFileKeys.INDEX_BLOCK_MAX_SIZE, StoreFileKeys.DEFAULT_INDEX_BLOCK_MAX_SIZE);
        if (index < 256) {
            throw new ConfigurationException(StoreFileKeys.INDEX_BLOCK_MAX_SIZE + " must be at least 256 bytes, got "
                + index);
        }
        double rate = rate(conf);
        if (!(rate > 0 && rate < 1)) {
            throw new ConfigurationException(StoreFileKeys.BLOOM_ERROR_RATE + " must be between 0 and 1 (exclusive), got "
                + rate);
        }
        int chunk = conf.getInt(StoreFileKeys.BLOOM_BLOCK_SIZE, StoreFileKeys.DEFAULT_BLOOM_BLOCK_SIZE);
        if (chunk < 16) {
            throw new ConfigurationException(StoreFileKeys.BLOOM_BLOCK_SIZE + " must be at least 16 bytes, got " + chunk);
        }
        return new StoreFileTuning(StorageConstants.DATA_BLOCK_SIZE, index, rate, chunk);
    }

    /** The error rate as a double (Configuration.getFloat would turn 0.01 into 0.009999999776...). */
    private static double rate(Configuration conf) {
        String v = conf.get(StoreFileKeys.BLOOM_ERROR_RATE);
        if (v == null || v.isBlank()) {
            return StoreFileKeys.DEFAULT_BLOOM_ERROR_RATE;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new ConfigurationException(StoreFileKeys.BLOOM_ERROR_RATE + " must be a number, got '" + v + "'");
        }
    }
}
