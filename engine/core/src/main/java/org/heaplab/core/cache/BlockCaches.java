package org.heaplab.core.cache;

import org.heaplab.core.conf.Configuration;

/**
 * Builds the server's block cache once at start-up from the configuration.
 * TODO(issue 4, cache helper): BucketCache (hbase.bucketcache.ioengine=offheap) and CombinedBlockCache.
 */
public final class BlockCaches {
    private BlockCaches() {
    }

    public static BlockCache fromConf(Configuration conf) {
        return LruBlockCache.fromConf(conf);
    }
}
