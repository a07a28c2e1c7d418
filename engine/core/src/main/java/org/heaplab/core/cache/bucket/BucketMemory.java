package org.heaplab.core.cache.bucket;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The cache memory of a BucketCache with hbase.bucketcache.ioengine=offheap (HBase's ByteBufferIOEngine):
 * one direct ByteBuffer per bucket, all reserved at start-up, so a cache larger than the JVM's direct
 * memory limit fails start-up with a clear message rather than the first flush or read. A slot never
 * crosses a bucket, so a block is always one contiguous slice.
 *
 * <p>Memory is never freed explicitly: the GC's cleaner frees the buffers once neither the cache nor any
 * reader's slice reaches them (freeing under a reader would crash the JVM).
 *
 * <p>Thread safety: buffers are only used through absolute operations and slices, so concurrent writers
 * of different slots and readers need no lock; the reference counts keep a slot from being rewritten
 * while someone reads it.
 */
final class BucketMemory {
    private final ByteBuffer[] buckets;
    private final long bucketCapacity;

    /**
     * @param configuredBytes the configured size, for the error message
     * @throws ConfigurationException naming hbase.bucketcache.size when the memory cannot be reserved
     */
    BucketMemory(int bucketCount, long bucketCapacity, long configuredBytes) {
        this.bucketCapacity = bucketCapacity;
        this.buckets = new ByteBuffer[bucketCount];
        try {
            for (int i = 0; i < bucketCount; i++) {
                buckets[i] = ByteBuffer.allocateDirect((int) bucketCapacity);
            }
        } catch (OutOfMemoryError e) {
            Arrays.fill(buckets, null);
            throw new ConfigurationException(CacheKeys.BUCKET_CACHE_SIZE + " asks for "
                + (configuredBytes >> 20) + " MB of direct memory for the bucket cache, which this JVM cannot"
                + " reserve (" + directMemoryLimit() + "): lower " + CacheKeys.BUCKET_CACHE_SIZE
                + " or raise -XX:MaxDirectMemorySize");
        }
    }

    /** A slice of the slot at {@code offset}: position 0, limit {@code length}; shares the cache memory. */
    ByteBuffer slice(long offset, int length) {
        ByteBuffer b = buckets[(int) (offset / bucketCapacity)];
        return b.slice((int) (offset % bucketCapacity), length);
    }

    /** Copies all of {@code src} (from 0 to its limit; its position is not used) into the slot at {@code offset}. */
    void write(long offset, ByteBuffer src) {
        ByteBuffer b = buckets[(int) (offset / bucketCapacity)];
        b.put((int) (offset % bucketCapacity), src, 0, src.limit());
    }

    /** "-XX:MaxDirectMemorySize=N MB, M MB in use" as far as the JVM tells. */
    static String directMemoryLimit() {
        String limit;
        try {
            String v = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .getVMOption("MaxDirectMemorySize").getValue();
            long bytes = Long.parseLong(v);
            limit = bytes == 0 ? "MaxDirectMemorySize unset: the heap size, " + (Runtime.getRuntime().maxMemory() >> 20) + " MB"
                : "-XX:MaxDirectMemorySize=" + (bytes >> 20) + " MB";
        } catch (RuntimeException e) {
            limit = "MaxDirectMemorySize unknown";
        }
        long used = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(p -> p.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
        return limit + ", " + (used >> 20) + " MB already in use";
    }
}
