package org.heaplab.core.cache;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;

/**
 * On-heap LRU block cache (HBase 1.x's LruBlockCache, single priority): blocks are heap byte[] that
 * live in the old generation until evicted.
 *
 * <p>Eviction: when the cached heap size exceeds {@code acceptable x capacity} (0.99) the least recently
 * used blocks go until it is at most {@code min x capacity} (0.95), as HBase's acceptable/min factors.
 * HBase evicts on a background thread; here the inserting thread does it. The single/multi/in-memory
 * priorities come in a later issue.
 *
 * <p>Heap size of a block: its length plus {@link #BLOCK_OVERHEAD} (array header, key, map entry).
 *
 * <p>Thread safety: all state is guarded by this object's monitor (one lock: simple, and a contention
 * point that the lab can show); counters are read under it too.
 */
public final class LruBlockCache implements BlockCache {
    /** Approximate heap bytes per cached block besides its data. */
    public static final int BLOCK_OVERHEAD = 112;

    private final long capacity;
    private final long acceptableSize;
    private final long minSize;
    private final LinkedHashMap<BlockCacheKey, byte[]> blocks = new LinkedHashMap<>(1024, 0.75f, true);
    private long heapSize;
    private long hits;
    private long misses;
    private long evictions;
    private long evictedBlocks;

    public LruBlockCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("negative block cache capacity " + capacityBytes);
        }
        this.capacity = capacityBytes;
        this.acceptableSize = Math.round(capacityBytes * StorageKeys.LRU_ACCEPTABLE_FACTOR);
        this.minSize = Math.round(capacityBytes * StorageKeys.LRU_MIN_FACTOR);
    }

    /**
     * The server's cache: {@code hfile.block.cache.size x Runtime.maxMemory()} bytes (or the lab override
     * {@code heaplab.block.cache.bytes}); {@link BlockCache#NONE} when that is 0.
     */
    public static BlockCache fromConf(Configuration conf) {
        long bytes = conf.getLong(StorageKeys.BLOCK_CACHE_BYTES, -1);
        if (bytes < 0) {
            float fraction = conf.getFloat(StorageKeys.BLOCK_CACHE_SIZE, StorageKeys.DEFAULT_BLOCK_CACHE_SIZE);
            if (fraction < 0 || fraction > 0.8f) {
                throw new org.heaplab.core.conf.ConfigurationException(StorageKeys.BLOCK_CACHE_SIZE
                    + " must be between 0 and 0.8, got " + fraction);
            }
            bytes = (long) (fraction * (double) Runtime.getRuntime().maxMemory());
        }
        return bytes == 0 ? BlockCache.NONE : new LruBlockCache(bytes);
    }

    static long heapSize(byte[] block) {
        return block.length + BLOCK_OVERHEAD;
    }

    @Override
    public synchronized byte[] getBlock(BlockCacheKey key) {
        byte[] b = blocks.get(key);
        if (b == null) {
            misses++;
        } else {
            hits++;
        }
        return b;
    }

    @Override
    public synchronized void cacheBlock(BlockCacheKey key, byte[] block) {
        long size = heapSize(block);
        if (size > acceptableSize) {
            return;
        }
        byte[] old = blocks.put(key, block);
        heapSize += size - (old == null ? 0 : heapSize(old));
        if (heapSize > acceptableSize) {
            evict();
        }
    }

    private void evict() {
        evictions++;
        Iterator<Map.Entry<BlockCacheKey, byte[]>> it = blocks.entrySet().iterator();
        while (heapSize > minSize && it.hasNext()) {
            byte[] b = it.next().getValue();
            it.remove();
            heapSize -= heapSize(b);
            evictedBlocks++;
        }
    }

    @Override
    public synchronized int evictBlocksByFile(long fileId) {
        int n = 0;
        Iterator<Map.Entry<BlockCacheKey, byte[]>> it = blocks.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<BlockCacheKey, byte[]> e = it.next();
            if (e.getKey().fileId() == fileId) {
                heapSize -= heapSize(e.getValue());
                it.remove();
                n++;
            }
        }
        return n;
    }

    @Override
    public synchronized CacheStats stats() {
        return new CacheStats(hits, misses, evictions, evictedBlocks, blocks.size(), heapSize, capacity);
    }
}
