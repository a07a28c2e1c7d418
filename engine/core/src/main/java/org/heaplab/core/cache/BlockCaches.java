package org.heaplab.core.cache;

import org.heaplab.core.cache.bucket.BucketCache;
import org.heaplab.core.cache.lru.LruBlockCache;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * Builds the server's block cache once at start-up (the cache switch of lab 04):
 * <ul>
 *   <li>hbase.bucketcache.ioengine unset: an {@link LruBlockCache} of hfile.block.cache.size x the heap
 *       (or heaplab.block.cache.bytes), HBase 1.x's on-heap cache; {@link BlockCache#NONE} when 0.</li>
 *   <li>hbase.bucketcache.ioengine=offheap: a {@link CombinedBlockCache}, that LRU cache as L1 for index
 *       and bloom blocks and a {@link BucketCache} of hbase.bucketcache.size MB of direct memory as L2
 *       for data blocks (HBase 2.x's off-heap read path).</li>
 * </ul>
 * Bad values throw a {@link ConfigurationException} with one line naming the key.
 */
public final class BlockCaches {
    private BlockCaches() {
    }

    public static BlockCache fromConf(Configuration conf) {
        String engine = conf.get(CacheKeys.BUCKET_CACHE_IOENGINE, "").trim();
        if (engine.isEmpty()) {
            return LruBlockCache.fromConf(conf);
        }
        if (!engine.equals(CacheKeys.IOENGINE_OFFHEAP)) {
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_IOENGINE + " must be " + CacheKeys.IOENGINE_OFFHEAP
                + " (or unset for the on-heap LruBlockCache only), got '" + engine + "'");
        }
        BlockCache l1 = LruBlockCache.fromConf(conf);
        BucketCache l2;
        try {
            l2 = BucketCache.fromConf(conf);
        } catch (RuntimeException e) {
            l1.close();
            throw e;
        }
        return new CombinedBlockCache(l1, l2);
    }
}
