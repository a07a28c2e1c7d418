package org.heaplab.core.storefile;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheMetrics;

/**
 * A test cache that keeps every block, on heap as offered or copied into direct memory (like an
 * off-heap BucketCache slot), counts hits, misses and inserts per type, and counts references handed
 * out and not yet released (a double release fails).
 */
final class TestBlockCache implements BlockCache {
    private final boolean offHeap;
    private final Map<BlockCacheKey, Block> blocks = new ConcurrentHashMap<>();
    final Map<BlockCacheKey, Boolean> inMemory = new ConcurrentHashMap<>();
    final AtomicInteger outstanding = new AtomicInteger();
    final Map<BlockType, AtomicLong> hits = new EnumMap<>(BlockType.class);
    final Map<BlockType, AtomicLong> misses = new EnumMap<>(BlockType.class);
    final Map<BlockType, AtomicLong> inserts = new EnumMap<>(BlockType.class);

    TestBlockCache(boolean offHeap) {
        this.offHeap = offHeap;
        for (BlockType t : BlockType.values()) {
            hits.put(t, new AtomicLong());
            misses.put(t, new AtomicLong());
            inserts.put(t, new AtomicLong());
        }
    }

    long hits(BlockType t) {
        return hits.get(t).get();
    }

    long misses(BlockType t) {
        return misses.get(t).get();
    }

    long inserts(BlockType t) {
        return inserts.get(t).get();
    }

    boolean contains(long fileId, long offset) {
        return blocks.containsKey(new BlockCacheKey(fileId, offset));
    }

    @Override
    public Block getBlock(BlockCacheKey key, BlockType type, boolean updateStats) {
        Block b = blocks.get(key);
        if (updateStats) {
            (b == null ? misses : hits).get(type).incrementAndGet();
        }
        if (b == null) {
            return null;
        }
        if (b.type() != type) {
            throw new AssertionError("block " + key + " cached as " + b.type() + ", asked as " + type);
        }
        if (!offHeap) {
            return b;
        }
        outstanding.incrementAndGet();
        AtomicBoolean released = new AtomicBoolean();
        return new Block(type, b.data(), () -> {
            if (!released.compareAndSet(false, true)) {
                throw new AssertionError("block " + key + " released twice");
            }
            outstanding.decrementAndGet();
        });
    }

    @Override
    public void cacheBlock(BlockCacheKey key, Block block, boolean inMemory) {
        inserts.get(block.type()).incrementAndGet();
        this.inMemory.put(key, inMemory);
        if (offHeap) {
            ByteBuffer d = ByteBuffer.allocateDirect(block.size());
            d.put(block.data().duplicate()).flip();
            blocks.put(key, new Block(block.type(), d, null));
        } else {
            blocks.put(key, block);
        }
    }

    @Override
    public int evictBlocksByFile(long fileId) {
        int before = blocks.size();
        blocks.keySet().removeIf(k -> k.fileId() == fileId);
        return before - blocks.size();
    }

    @Override
    public List<CacheMetrics> metrics() {
        return List.of();
    }

    @Override
    public void close() {
    }
}
