package org.heaplab.core.cache.lru;

import org.heaplab.core.cache.BlockPriority;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The settings of one LruBlockCache, validated (HBase's keys and defaults; see {@link CacheKeys}).
 *
 * @param capacityBytes     heap bytes the cache aims to hold
 * @param singleFactor      share of SINGLE blocks (0.25)
 * @param multiFactor       share of MULTI blocks (0.50)
 * @param memoryFactor      share of MEMORY blocks (0.25); the three add up to 1
 * @param acceptableFactor  the eviction thread is woken above this fraction (0.99)
 * @param minFactor         and evicts down to this fraction (0.95)
 * @param hardLimitFactor   above this fraction new blocks are refused (1.2)
 * @param maxBlockSize      larger blocks are never cached (16 MB)
 */
public record LruCacheConfig(long capacityBytes, float singleFactor, float multiFactor, float memoryFactor,
                             float acceptableFactor, float minFactor, float hardLimitFactor, long maxBlockSize) {
    public LruCacheConfig {
        if (capacityBytes < 0) {
            throw new ConfigurationException("block cache capacity must not be negative, got " + capacityBytes);
        }
        float sum = singleFactor + multiFactor + memoryFactor;
        if (singleFactor < 0 || multiFactor < 0 || memoryFactor < 0 || Math.abs(sum - 1) > 1e-4) {
            throw new ConfigurationException(CacheKeys.LRU_SINGLE_PERCENTAGE + ", " + CacheKeys.LRU_MULTI_PERCENTAGE + " and "
                + CacheKeys.LRU_MEMORY_PERCENTAGE + " must be at least 0 and add up to 1, got " + singleFactor + " + "
                + multiFactor + " + " + memoryFactor);
        }
        if (!(minFactor > 0 && minFactor <= acceptableFactor && acceptableFactor <= 1)) {
            throw new ConfigurationException(CacheKeys.LRU_MIN_FACTOR + " and " + CacheKeys.LRU_ACCEPTABLE_FACTOR
                + " must satisfy 0 < min <= acceptable <= 1, got " + minFactor + " and " + acceptableFactor);
        }
        if (hardLimitFactor < 1) {
            throw new ConfigurationException(CacheKeys.LRU_HARD_CAPACITY_LIMIT_FACTOR + " must be at least 1, got "
                + hardLimitFactor);
        }
        if (maxBlockSize <= 0) {
            throw new ConfigurationException(CacheKeys.LRU_MAX_BLOCK_SIZE + " must be positive, got " + maxBlockSize);
        }
    }

    /** HBase's defaults for everything but the capacity. */
    public static LruCacheConfig ofCapacity(long capacityBytes) {
        return new LruCacheConfig(capacityBytes, CacheKeys.DEFAULT_LRU_SINGLE_PERCENTAGE,
            CacheKeys.DEFAULT_LRU_MULTI_PERCENTAGE, CacheKeys.DEFAULT_LRU_MEMORY_PERCENTAGE,
            CacheKeys.DEFAULT_LRU_ACCEPTABLE_FACTOR, CacheKeys.DEFAULT_LRU_MIN_FACTOR,
            CacheKeys.DEFAULT_LRU_HARD_CAPACITY_LIMIT_FACTOR, CacheKeys.DEFAULT_LRU_MAX_BLOCK_SIZE);
    }

    /** The factors and limits of {@code conf} for a cache of {@code capacityBytes}. */
    public static LruCacheConfig fromConf(Configuration conf, long capacityBytes) {
        return new LruCacheConfig(capacityBytes,
            conf.getFloat(CacheKeys.LRU_SINGLE_PERCENTAGE, CacheKeys.DEFAULT_LRU_SINGLE_PERCENTAGE),
            conf.getFloat(CacheKeys.LRU_MULTI_PERCENTAGE, CacheKeys.DEFAULT_LRU_MULTI_PERCENTAGE),
            conf.getFloat(CacheKeys.LRU_MEMORY_PERCENTAGE, CacheKeys.DEFAULT_LRU_MEMORY_PERCENTAGE),
            conf.getFloat(CacheKeys.LRU_ACCEPTABLE_FACTOR, CacheKeys.DEFAULT_LRU_ACCEPTABLE_FACTOR),
            conf.getFloat(CacheKeys.LRU_MIN_FACTOR, CacheKeys.DEFAULT_LRU_MIN_FACTOR),
            conf.getFloat(CacheKeys.LRU_HARD_CAPACITY_LIMIT_FACTOR, CacheKeys.DEFAULT_LRU_HARD_CAPACITY_LIMIT_FACTOR),
            conf.getLong(CacheKeys.LRU_MAX_BLOCK_SIZE, CacheKeys.DEFAULT_LRU_MAX_BLOCK_SIZE));
    }

    long acceptableBytes() {
        return Math.round(capacityBytes * (double) acceptableFactor);
    }

    long minBytes() {
        return Math.round(capacityBytes * (double) minFactor);
    }

    long hardLimitBytes() {
        return Math.round(capacityBytes * (double) hardLimitFactor);
    }

    /** The fair share of one priority group: capacity x min x its factor. */
    long share(BlockPriority p) {
        float f = switch (p) {
            case SINGLE -> singleFactor;
            case MULTI -> multiFactor;
            case MEMORY -> memoryFactor;
        };
        return Math.round(capacityBytes * (double) minFactor * f);
    }
}
