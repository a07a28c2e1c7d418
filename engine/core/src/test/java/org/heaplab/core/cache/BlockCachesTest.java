package org.heaplab.core.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.cache.bucket.BucketCache;
import org.heaplab.core.cache.lru.LruBlockCache;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class BlockCachesTest {
    private static String error(Configuration conf) {
        String m = assertThrows(ConfigurationException.class, () -> BlockCaches.fromConf(conf)).getMessage();
        assertEquals(1, m.lines().count(), "one line: " + m);
        return m;
    }

    @Test
    void withoutAnIoEngineTheCacheIsTheOnHeapLru() {
        try (BlockCache c = BlockCaches.fromConf(new Configuration().set(CacheKeys.BLOCK_CACHE_BYTES, "4096"))) {
            assertInstanceOf(LruBlockCache.class, c);
            assertEquals(4096, c.metrics().get(0).capacityBytes());
        }
        assertSame(BlockCache.NONE, BlockCaches.fromConf(new Configuration().set(CacheKeys.BLOCK_CACHE_SIZE, "0")));
    }

    @Test
    void offheapGivesACombinedCacheWithABucketCacheOfTheConfiguredMegabytes() {
        Configuration conf = new Configuration().set(CacheKeys.BUCKET_CACHE_IOENGINE, "offheap")
            .set(CacheKeys.BUCKET_CACHE_SIZE, "32").set(CacheKeys.BLOCK_CACHE_BYTES, String.valueOf(1 << 20))
            .set(CacheKeys.BUCKET_CACHE_WRITER_THREADS, "2").set(CacheKeys.BUCKET_CACHE_WRITER_QUEUE_LENGTH, "8");
        try (BlockCache c = BlockCaches.fromConf(conf)) {
            CombinedBlockCache combined = assertInstanceOf(CombinedBlockCache.class, c);
            BucketCache l2 = combined.l2();
            long bucket = 4L * 513 * 1024;
            assertEquals(32L * 1024 * 1024 / bucket * bucket, c.metrics().get(1).capacityBytes(), "whole buckets");
            assertEquals(1 << 20, c.metrics().get(0).capacityBytes());
            assertEquals(2, l2.config().writerThreads());
            assertEquals(8, l2.config().writerQueueLength());
            assertEquals(14, l2.config().bucketSizes().length);
        }
    }

    @Test
    void withoutAnL1MetaBlocksAreNotCachedAndDataBlocksStillGoOffHeap() {
        Configuration conf = new Configuration().set(CacheKeys.BUCKET_CACHE_IOENGINE, "offheap")
            .set(CacheKeys.BUCKET_CACHE_SIZE, "32").set(CacheKeys.BLOCK_CACHE_SIZE, "0");
        try (CombinedBlockCache c = (CombinedBlockCache) BlockCaches.fromConf(conf)) {
            assertSame(BlockCache.NONE, c.l1());
            assertEquals(List.of("bucket"), c.metrics().stream().map(CacheMetrics::name).toList());
            c.cacheBlock(new BlockCacheKey(1, 0), Block.onHeap(BlockType.BLOOM, new byte[10]), false);
            assertEquals(null, c.getBlock(new BlockCacheKey(1, 0), BlockType.BLOOM, true));
        }
    }

    @Test
    void bucketSizesCanBeOverridden() {
        Configuration conf = new Configuration().set(CacheKeys.BUCKET_CACHE_IOENGINE, "offheap")
            .set(CacheKeys.BUCKET_CACHE_SIZE, "1").set(CacheKeys.BUCKET_CACHE_BUCKET_SIZES, "5120, 66560");
        try (CombinedBlockCache c = (CombinedBlockCache) BlockCaches.fromConf(conf)) {
            assertEquals(2, c.l2().config().bucketSizes().length);
            assertEquals(66560, c.l2().config().bucketSizes()[1]);
        }
    }

    @Test
    void badValuesFailWithOneLineNamingTheKey() {
        Configuration offheap = new Configuration().set(CacheKeys.BUCKET_CACHE_IOENGINE, "offheap");
        assertTrue(error(new Configuration().set(CacheKeys.BUCKET_CACHE_IOENGINE, "file:/tmp/cache"))
            .startsWith("hbase.bucketcache.ioengine must be offheap"));
        assertTrue(error(offheap).startsWith("hbase.bucketcache.size (MB) must be set"));
        assertTrue(error(offheap.set(CacheKeys.BUCKET_CACHE_SIZE, "lots")).startsWith("hbase.bucketcache.size must be"));
        assertTrue(error(offheap.set(CacheKeys.BUCKET_CACHE_SIZE, "16"))
            .startsWith("hbase.bucketcache.size of 16 MB is too small"), "fewer buckets than classes");
        offheap.set(CacheKeys.BUCKET_CACHE_SIZE, "64");
        assertTrue(error(offheap.set(CacheKeys.BUCKET_CACHE_BUCKET_SIZES, "5000,9216"))
            .startsWith("hbase.bucketcache.bucket.sizes must be"), "not a multiple of 256");
        assertTrue(error(offheap.set(CacheKeys.BUCKET_CACHE_BUCKET_SIZES, "9216,5120"))
            .startsWith("hbase.bucketcache.bucket.sizes must be"), "not ascending");
        offheap.set(CacheKeys.BUCKET_CACHE_BUCKET_SIZES, "");
        assertTrue(error(offheap.set(CacheKeys.BUCKET_CACHE_WRITER_THREADS, "0"))
            .startsWith("hbase.bucketcache.writer.threads must be at least 1"));
    }

    /** A cache larger than -XX:MaxDirectMemorySize fails at start-up with one line naming the key. */
    @Test
    void aBucketCacheLargerThanTheDirectMemoryLimitFailsNamingTheKey() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx64m", "-XX:MaxDirectMemorySize=16m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
            StartupProbe.class.getName(), "64");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        assertTrue(p.waitFor(50, TimeUnit.SECONDS), "the child exits");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.startsWith("ERROR: hbase.bucketcache.size asks for 64 MB of direct memory"), out);
        assertTrue(out.contains("-XX:MaxDirectMemorySize=16 MB"), out);
        assertEquals(1, out.lines().count(), "one line: " + out);
        assertFalse(out.contains("at org.heaplab"), "no stack trace: " + out);
    }

    /** The child JVM of the test above: builds the cache as a server does at start-up. */
    public static final class StartupProbe {
        public static void main(String[] args) {
            Configuration conf = new Configuration().set(CacheKeys.BUCKET_CACHE_IOENGINE, "offheap")
                .set(CacheKeys.BUCKET_CACHE_SIZE, args[0]).set(CacheKeys.BLOCK_CACHE_BYTES, "1048576");
            try (BlockCache c = BlockCaches.fromConf(conf)) {
                System.out.println("started: " + c.metrics());
            } catch (ConfigurationException e) {
                System.out.println("ERROR: " + e.getMessage());
                System.exit(1);
            }
        }
    }
}
