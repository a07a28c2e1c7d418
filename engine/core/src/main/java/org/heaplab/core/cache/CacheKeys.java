package org.heaplab.core.cache;

import org.heaplab.core.conf.StorageKeys;

/**
 * Configuration keys of the block caches and their defaults (HBase's names and values; see
 * engine/docs/block-cache.md). The heap-fraction keys of the LRU cache, hfile.block.cache.size and the lab
 * override heaplab.block.cache.bytes, live in {@link StorageKeys} and are repeated here for reference.
 */
public final class CacheKeys {
    public static final String BLOCK_CACHE_SIZE = StorageKeys.BLOCK_CACHE_SIZE;
    public static final String BLOCK_CACHE_BYTES = StorageKeys.BLOCK_CACHE_BYTES;

    // ---- LruBlockCache (on heap) ----
    /** Share of the LRU capacity kept for blocks read once (SINGLE priority). */
    public static final String LRU_SINGLE_PERCENTAGE = "hbase.lru.blockcache.single.percentage";
    public static final float DEFAULT_LRU_SINGLE_PERCENTAGE = 0.25f;
    /** Share for blocks read at least twice (MULTI priority). */
    public static final String LRU_MULTI_PERCENTAGE = "hbase.lru.blockcache.multi.percentage";
    public static final float DEFAULT_LRU_MULTI_PERCENTAGE = 0.50f;
    /** Share for blocks of IN_MEMORY families (MEMORY priority). */
    public static final String LRU_MEMORY_PERCENTAGE = "hbase.lru.blockcache.memory.percentage";
    public static final float DEFAULT_LRU_MEMORY_PERCENTAGE = 0.25f;
    /** The eviction thread is woken once the cache holds more than this fraction of its capacity. */
    public static final String LRU_ACCEPTABLE_FACTOR = "hbase.lru.blockcache.acceptable.factor";
    public static final float DEFAULT_LRU_ACCEPTABLE_FACTOR = 0.99f;
    /** An eviction run frees blocks until the cache holds at most this fraction. */
    public static final String LRU_MIN_FACTOR = "hbase.lru.blockcache.min.factor";
    public static final float DEFAULT_LRU_MIN_FACTOR = 0.95f;
    /** Above this fraction of its capacity the cache refuses new blocks (the eviction thread is behind). */
    public static final String LRU_HARD_CAPACITY_LIMIT_FACTOR = "hbase.lru.blockcache.hard.capacity.limit.factor";
    public static final float DEFAULT_LRU_HARD_CAPACITY_LIMIT_FACTOR = 1.2f;
    /** Blocks larger than this are never cached on heap. */
    public static final String LRU_MAX_BLOCK_SIZE = "hbase.lru.max.block.size";
    public static final long DEFAULT_LRU_MAX_BLOCK_SIZE = 16L * 1024 * 1024;

    // ---- BucketCache (off heap) ----
    /** offheap: a BucketCache in direct memory as L2 (a CombinedBlockCache); unset: the LRU cache only. */
    public static final String BUCKET_CACHE_IOENGINE = "hbase.bucketcache.ioengine";
    public static final String IOENGINE_OFFHEAP = "offheap";
    /** BucketCache capacity in MB, reserved as direct memory at start-up. */
    public static final String BUCKET_CACHE_SIZE = "hbase.bucketcache.size";
    /** Comma-separated slot sizes in bytes (multiples of 256, ascending); default the 14 HBase classes. */
    public static final String BUCKET_CACHE_BUCKET_SIZES = "hbase.bucketcache.bucket.sizes";
    /** Threads that copy offered blocks into bucket slots, each with its own queue. */
    public static final String BUCKET_CACHE_WRITER_THREADS = "hbase.bucketcache.writer.threads";
    public static final int DEFAULT_BUCKET_CACHE_WRITER_THREADS = 3;
    /** Capacity of each writer queue; a block offered to a full queue is dropped (a failed insert). */
    public static final String BUCKET_CACHE_WRITER_QUEUE_LENGTH = "hbase.bucketcache.writer.queuelength";
    public static final int DEFAULT_BUCKET_CACHE_WRITER_QUEUE_LENGTH = 64;
    /** Eviction starts once the used slots exceed this fraction of the capacity. */
    public static final String BUCKET_CACHE_ACCEPT_FACTOR = "hbase.bucketcache.acceptfactor";
    public static final float DEFAULT_BUCKET_CACHE_ACCEPT_FACTOR = 0.95f;
    /** Eviction aims at leaving (1 - this) of every size class's slots free. */
    public static final String BUCKET_CACHE_MIN_FACTOR = "hbase.bucketcache.minfactor";
    public static final float DEFAULT_BUCKET_CACHE_MIN_FACTOR = 0.85f;
    /** Eviction frees this much more than its target, so it does not run again at once. */
    public static final String BUCKET_CACHE_EXTRA_FREE_FACTOR = "hbase.bucketcache.extrafreefactor";
    public static final float DEFAULT_BUCKET_CACHE_EXTRA_FREE_FACTOR = 0.10f;
    /** BucketCache eviction group shares single/multi/memory (HBase's constants, not configurable here). */
    public static final float BUCKET_SINGLE_FACTOR = 0.25f;
    public static final float BUCKET_MULTI_FACTOR = 0.50f;
    public static final float BUCKET_MEMORY_FACTOR = 0.25f;

    private CacheKeys() {
    }
}
