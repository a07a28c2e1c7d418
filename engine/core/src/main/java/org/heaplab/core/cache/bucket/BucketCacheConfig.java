package org.heaplab.core.cache.bucket;

import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The settings of one BucketCache, validated (HBase's keys; see {@link CacheKeys}).
 *
 * @param capacityBytes     hbase.bucketcache.size (MB in the configuration), rounded down to whole buckets
 * @param bucketSizes       the size classes, ascending (hbase.bucketcache.bucket.sizes)
 * @param writerThreads     hbase.bucketcache.writer.threads (3)
 * @param writerQueueLength hbase.bucketcache.writer.queuelength (64)
 * @param acceptFactor      eviction starts above this fraction used (0.95)
 * @param minFactor         eviction leaves (1 - this) of each class free (0.85)
 * @param extraFreeFactor   and frees this much more (0.10)
 */
public record BucketCacheConfig(long capacityBytes, int[] bucketSizes, int writerThreads, int writerQueueLength,
                                float acceptFactor, float minFactor, float extraFreeFactor) {
    public BucketCacheConfig {
        bucketSizes = bucketSizes.clone();
        if (writerThreads < 1) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_WRITER_THREADS + " must be at least 1, got " + writerThreads);
        }
        if (writerQueueLength < 1) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_WRITER_QUEUE_LENGTH + " must be at least 1, got "
                + writerQueueLength);
        }
        if (!(minFactor > 0 && minFactor <= acceptFactor && acceptFactor <= 1)) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_MIN_FACTOR + " and " + CacheKeys.BUCKET_CACHE_ACCEPT_FACTOR
                + " must satisfy 0 < min <= accept <= 1, got " + minFactor + " and " + acceptFactor);
        }
        if (!(extraFreeFactor >= 0 && extraFreeFactor <= 1)) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_EXTRA_FREE_FACTOR + " must be between 0 and 1, got "
                + extraFreeFactor);
        }
        long min = BucketAllocator.minimumBytes(bucketSizes);
        if (capacityBytes < min) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_SIZE + " of " + (capacityBytes >> 20) + " MB is too small: "
                + bucketSizes.length + " size classes need one bucket of " + BucketAllocator.bucketCapacity(bucketSizes) / 1024
                + " KB each, at least " + ((min + (1 << 20) - 1) >> 20) + " MB");
        }
    }

    /** HBase's defaults for everything but the capacity. */
    public static BucketCacheConfig ofCapacity(long capacityBytes) {
        return of(capacityBytes, BucketSizes.defaults());
    }

    /** HBase's defaults for everything but the capacity and the size classes. */
    public static BucketCacheConfig of(long capacityBytes, int[] bucketSizes) {
        return new BucketCacheConfig(capacityBytes, bucketSizes, CacheKeys.DEFAULT_BUCKET_CACHE_WRITER_THREADS,
            CacheKeys.DEFAULT_BUCKET_CACHE_WRITER_QUEUE_LENGTH, CacheKeys.DEFAULT_BUCKET_CACHE_ACCEPT_FACTOR,
            CacheKeys.DEFAULT_BUCKET_CACHE_MIN_FACTOR, CacheKeys.DEFAULT_BUCKET_CACHE_EXTRA_FREE_FACTOR);
    }

    public BucketCacheConfig withWriters(int threads, int queueLength) {
        return new BucketCacheConfig(capacityBytes, bucketSizes, threads, queueLength, acceptFactor, minFactor,
            extraFreeFactor);
    }

    /** Reads hbase.bucketcache.size (MB, required, > 0) and the optional keys. */
    public static BucketCacheConfig fromConf(Configuration conf) {
        String size = conf.get(CacheKeys.BUCKET_CACHE_SIZE);
        if (size == null || size.isBlank()) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_SIZE + " (MB) must be set when "
                + CacheKeys.BUCKET_CACHE_IOENGINE + "=" + CacheKeys.IOENGINE_OFFHEAP);
        }
        long mb;
        try {
            mb = Long.parseLong(size.trim());
        } catch (NumberFormatException e) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_SIZE + " must be a whole number of MB, got '" + size + "'");
        }
        if (mb <= 0) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_SIZE + " must be a positive number of MB, got " + mb);
        }
        return new BucketCacheConfig(mb << 20, BucketSizes.parse(conf.get(CacheKeys.BUCKET_CACHE_BUCKET_SIZES)),
            conf.getInt(CacheKeys.BUCKET_CACHE_WRITER_THREADS, CacheKeys.DEFAULT_BUCKET_CACHE_WRITER_THREADS),
            conf.getInt(CacheKeys.BUCKET_CACHE_WRITER_QUEUE_LENGTH, CacheKeys.DEFAULT_BUCKET_CACHE_WRITER_QUEUE_LENGTH),
            conf.getFloat(CacheKeys.BUCKET_CACHE_ACCEPT_FACTOR, CacheKeys.DEFAULT_BUCKET_CACHE_ACCEPT_FACTOR),
            conf.getFloat(CacheKeys.BUCKET_CACHE_MIN_FACTOR, CacheKeys.DEFAULT_BUCKET_CACHE_MIN_FACTOR),
            conf.getFloat(CacheKeys.BUCKET_CACHE_EXTRA_FREE_FACTOR, CacheKeys.DEFAULT_BUCKET_CACHE_EXTRA_FREE_FACTOR));
    }
}
