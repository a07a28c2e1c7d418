package org.heaplab.core.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Test-mode check that every reference a cache handed out was given back (the block-cache counterpart of
 * memstore/ChunkLeakDetector). A BucketCache counts every reference {@code getBlock} takes for a caller
 * and every {@link Block#release}; {@link #assertNoLeaks} fails while any is outstanding. A leaked
 * reference pins a slot forever: eviction skips it and the memory is never reused.
 *
 * <p>Counting is always on (two LongAdders). Where each outstanding reference was taken is recorded only
 * with {@code -Dheaplab.leak.detection=true} (a stack trace per getBlock), and then named in the failure.
 * On-heap caches hand out heap blocks, whose release is a no-op: nothing to leak, nothing counted.
 *
 * <p>Use: after the reads (every ReadScope closed), {@code CacheLeakDetector.assertNoLeaks(cache)}.
 *
 * <p>Thread safety: safe from any thread.
 */
public final class CacheLeakDetector {
    /** Caches that count references implement this, so they depend on the detector and it on none of them. */
    public interface Counted {
        /** The detectors counting this cache's references (a combined cache: those of the caches inside it). */
        List<CacheLeakDetector> leakDetectors();
    }

    /** The system property that turns recording of take sites on (shared with ChunkLeakDetector). */
    public static final String PROPERTY = "heaplab.leak.detection";

    private final String cacheName;
    private final boolean recordSites;
    private final LongAdder taken = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final Map<Object, Throwable> sites = new ConcurrentHashMap<>();

    public CacheLeakDetector(String cacheName, boolean recordSites) {
        this.cacheName = cacheName;
        this.recordSites = recordSites;
    }

    /** Records sites when {@code -Dheaplab.leak.detection=true}. */
    public static CacheLeakDetector fromSystemProperty(String cacheName) {
        return new CacheLeakDetector(cacheName, Boolean.getBoolean(PROPERTY));
    }

    /** A reference was handed out ({@code ref} identifies it until released). */
    public void taken(Object ref) {
        taken.increment();
        if (recordSites) {
            sites.put(ref, new Throwable("cache reference taken here"));
        }
    }

    public void released(Object ref) {
        released.increment();
        if (recordSites) {
            sites.remove(ref);
        }
    }

    /** References handed out and not yet released. */
    public long outstanding() {
        return taken.sum() - released.sum();
    }

    public long taken() {
        return taken.sum();
    }

    /** Throws, naming (with site recording on) where up to five of them were taken, unless none is outstanding. */
    public void assertNoLeaks() {
        long n = outstanding();
        if (n != 0) {
            IllegalStateException e = new IllegalStateException(n + " " + cacheName + " block reference(s) never released"
                + (recordSites ? "" : " (run with -D" + PROPERTY + "=true to see where they were taken)"));
            List<Throwable> where = new ArrayList<>(sites.values());
            where.stream().limit(5).forEach(e::addSuppressed);
            throw e;
        }
    }

    /** The detectors of {@code cache} and of the caches inside it (none for on-heap caches: not {@link Counted}). */
    public static List<CacheLeakDetector> of(BlockCache cache) {
        return cache instanceof Counted c ? c.leakDetectors() : List.of();
    }

    /** Outstanding references over every off-heap cache in {@code cache}. */
    public static long outstanding(BlockCache cache) {
        return of(cache).stream().mapToLong(CacheLeakDetector::outstanding).sum();
    }

    /** Fails if any off-heap cache in {@code cache} has an outstanding reference. */
    public static void assertNoLeaks(BlockCache cache) {
        for (CacheLeakDetector d : of(cache)) {
            d.assertNoLeaks();
        }
    }
}
