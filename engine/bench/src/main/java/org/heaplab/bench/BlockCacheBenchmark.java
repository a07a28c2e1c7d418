package org.heaplab.bench;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheLeakDetector;
import org.heaplab.core.cache.CombinedBlockCache;
import org.heaplab.core.cache.bucket.BucketAllocator;
import org.heaplab.core.cache.bucket.BucketCache;
import org.heaplab.core.cache.bucket.BucketCacheConfig;
import org.heaplab.core.cache.lru.LruBlockCache;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Block cache hit, one op = {@code getBlock} of a random cached data block, one byte read from it, and
 * {@code release}, per cache: {@code lru} (on heap, HBase 1.x), {@code bucket} (off heap: a reference
 * taken and given back, a slice object per hit) and {@code combined} (the bucket behind the type
 * routing, as the hbase2-offheap profile builds it). Every block is cached in the trial set-up, so every
 * op is a hit; the cache is large enough that nothing is evicted. With {@code -prof gc} the allocation
 * per op shows what a hit costs the heap (a few small objects for the bucket cache, none for the LRU).
 *
 * <p>What it leaves out: the read path's heap copy (heap-copy copies each off-heap hit to a new byte[];
 * zero-copy does not), seeking in the block, and the RPC. Those are in the labs' end-to-end runs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:MaxDirectMemorySize=1g", "-XX:+UseG1GC"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class BlockCacheBenchmark {
    @Param({"lru", "bucket", "combined"})
    public String cache;

    /** Bytes per block: a 64 KB data block. */
    @Param("65536")
    public int blockSize;

    /** Cached blocks (1024 x 64 KB = 64 MB). */
    @Param("1024")
    public int blocks;

    private BlockCache blockCache;
    private BlockCacheKey[] keys;

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        keys = new BlockCacheKey[blocks];
        for (int i = 0; i < blocks; i++) {
            keys[i] = new BlockCacheKey(1, (long) i * blockSize);
        }
        long bytes = (long) blocks * blockSize;
        blockCache = switch (cache) {
            case "lru" -> new LruBlockCache(bytes * 2);
            case "bucket" -> newBucketCache(bytes);
            case "combined" -> new CombinedBlockCache(new LruBlockCache(16L << 20), newBucketCache(bytes));
            default -> throw new IllegalArgumentException("cache must be lru, bucket or combined, got " + cache);
        };
        byte[] data = new byte[blockSize];
        ThreadLocalRandom.current().nextBytes(data);
        for (int i = 0; i < blocks; i++) {
            blockCache.cacheBlock(keys[i], Block.onHeap(BlockType.DATA, data.clone()), false);
            if (i % 32 == 31) {
                awaitWrites(); // the writer queues drop blocks offered faster than they are written
            }
        }
        awaitWrites();
        for (BlockCacheKey k : keys) {
            Block b = blockCache.getBlock(k, BlockType.DATA, false);
            if (b == null || b.isOffHeap() == cache.equals("lru")) {
                throw new IllegalStateException(cache + ": block " + k + " is not cached where it should be");
            }
            b.release();
        }
    }

    private static BucketCache newBucketCache(long bytes) {
        BucketCacheConfig probe = BucketCacheConfig.ofCapacity(1L << 30);
        long bucket = BucketAllocator.bucketCapacity(probe.bucketSizes());
        // one bucket per class to start, then room for every block plus a fifth
        long capacity = BucketAllocator.minimumBytes(probe.bucketSizes()) + bytes * 6 / 5 + bucket;
        return new BucketCache(BucketCacheConfig.ofCapacity(capacity));
    }

    private void awaitWrites() throws InterruptedException {
        BucketCache b = blockCache instanceof BucketCache bc ? bc
            : blockCache instanceof CombinedBlockCache c ? c.l2() : null;
        if (b != null && !b.awaitWrites(60_000)) {
            throw new IllegalStateException("bucket cache writers did not finish");
        }
    }

    @Benchmark
    @Threads(1)
    public byte getHit() {
        return hit();
    }

    /** Eight readers, as PE randomRead with 8 clients (on a 2-core machine they contend for the CPUs). */
    @Benchmark
    @Threads(8)
    public byte getHitThreads8() {
        return hit();
    }

    private byte hit() {
        Block b = blockCache.getBlock(keys[ThreadLocalRandom.current().nextInt(keys.length)], BlockType.DATA, true);
        try {
            return b.data().get(b.size() - 1);
        } finally {
            b.release();
        }
    }

    /** The cache under test (for tests). */
    BlockCache blockCache() {
        return blockCache;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        CacheLeakDetector.assertNoLeaks(blockCache);
        System.out.println("block cache " + cache + ": " + blockCache.metrics());
        blockCache.close();
    }
}
