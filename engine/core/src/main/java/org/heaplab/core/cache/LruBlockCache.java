package org.heaplab.core.cache;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
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
    private final LinkedHashMap<BlockCacheKey, Block> blocks = new LinkedHashMap<>(1024, 0.75f, true);
    private long heapSize;
    private final TypeCounters counters = new TypeCounters();
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

    static long heapSize(Block block) {
        return block.size() + BLOCK_OVERHEAD;
    }

    @Override
    public synchronized Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats) {
        Block b = blocks.get(key);
        if (updateStats) {
            if (b == null) {
                counters.miss(type);
            } else {
                counters.hit(type);
            }
        }
        return b;
    }

    @Override
    public synchronized void cacheBlock(BlockCacheKey key, Block offered, boolean inMemory) {
        Block block = offered;
        if (offered.isOffHeap()) { // keep heap memory only
            byte[] copy = new byte[offered.size()];
            offered.data().duplicate().get(copy);
            block = Block.onHeap(offered.type(), copy);
        }
        long size = heapSize(block);
        if (size > acceptableSize) {
            return;
        }
        Block old = blocks.put(key, block);
        heapSize += size - (old == null ? 0 : heapSize(old));
        if (heapSize > acceptableSize) {
            evict();
        }
    }

    private void evict() {
        evictions++;
        Iterator<Map.Entry<BlockCacheKey, Block>> it = blocks.entrySet().iterator();
        while (heapSize > minSize && it.hasNext()) {
            Block b = it.next().getValue();
            it.remove();
            heapSize -= heapSize(b);
            evictedBlocks++;
        }
    }

    @Override
    public synchronized int evictBlocksByFile(long fileId) {
        int n = 0;
        Iterator<Map.Entry<BlockCacheKey, Block>> it = blocks.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<BlockCacheKey, Block> e = it.next();
            if (e.getKey().fileId() == fileId) {
                heapSize -= heapSize(e.getValue());
                it.remove();
                n++;
            }
        }
        return n;
    }

    @Override
    public synchronized List<CacheMetrics> metrics() {
        return List.of(new CacheMetrics("lru", capacity, heapSize, blocks.size(), counters.snapshot(), evictions,
            evictedBlocks, 0, 0));
    }

    @Override
    public void close() {
    }
}
