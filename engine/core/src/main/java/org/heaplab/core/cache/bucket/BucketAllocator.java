package org.heaplab.core.cache.bucket;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Hands out fixed-size slots of cache memory (HBase's BucketAllocator). The memory is cut into buckets of
 * 4 x the largest size class; each bucket holds slots of one class. At start bucket i holds class i (so
 * every class has one bucket) and the remaining buckets the largest class. A block takes a slot of the
 * smallest class that fits it; the difference is waste (counted by the cache).
 *
 * <p>When a class has no free slot, it takes a completely free bucket of another class, but never the
 * last bucket of a class. A bucket with even one block in it keeps its class: with a workload whose
 * block sizes shift, buckets of the old classes stay half used and the new class runs out of slots
 * (fragmentation); the evictor then frees whole buckets ({@link BucketEvictor}).
 *
 * <p>Offsets: a slot is named by its byte offset in the cache memory, bucket index x bucket capacity +
 * slot number x slot size.
 *
 * <p>Thread safety: every method is synchronized on the allocator (one lock; allocation and free are
 * short, and happen on writer and eviction threads, never on a reading handler).
 */
public final class BucketAllocator {
    /** What {@link #allocate} returns when no slot of the class is free and no bucket can be re-assigned. */
    public static final long NO_SPACE = -1;

    /** The buckets of one size class: those with a free slot that are partly used, and the empty ones. */
    private static final class SizeClass {
        final int slotSize;
        final List<Bucket> buckets = new ArrayList<>();
        final LinkedHashSet<Bucket> partlyUsed = new LinkedHashSet<>();
        final LinkedHashSet<Bucket> empty = new LinkedHashSet<>();

        SizeClass(int slotSize) {
            this.slotSize = slotSize;
        }
    }

    /** One size class as the evictor sees it. */
    public record ClassStats(int slotSize, int buckets, long slots, long freeSlots) {
    }

    private final int[] sizes;
    private final long bucketCapacity;
    private final Bucket[] buckets;
    private final SizeClass[] classes;
    private long usedBytes;
    private long reassignments;

    /**
     * @throws IllegalArgumentException when {@code totalBytes} holds fewer buckets than there are classes
     *                                  ({@link #minimumBytes})
     */
    public BucketAllocator(long totalBytes, int[] sizes) {
        this.sizes = sizes.clone();
        this.bucketCapacity = bucketCapacity(sizes);
        long count = totalBytes / bucketCapacity;
        if (count < sizes.length) {
            throw new IllegalArgumentException(totalBytes + " bytes hold " + count + " buckets of " + bucketCapacity
                + " bytes, fewer than the " + sizes.length + " size classes; at least " + minimumBytes(sizes) + " bytes needed");
        }
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many buckets: " + count);
        }
        this.buckets = new Bucket[(int) count];
        this.classes = new SizeClass[sizes.length];
        for (int c = 0; c < sizes.length; c++) {
            classes[c] = new SizeClass(sizes[c]);
        }
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new Bucket(i, bucketCapacity);
            int c = Math.min(i, sizes.length - 1);
            buckets[i].assign(c, sizes[c]);
            classes[c].buckets.add(buckets[i]);
            classes[c].empty.add(buckets[i]);
        }
    }

    /** 4 x the largest size class, as HBase. */
    public static long bucketCapacity(int[] sizes) {
        return 4L * sizes[sizes.length - 1];
    }

    /** The smallest memory that gives every size class one bucket. */
    public static long minimumBytes(int[] sizes) {
        return sizes.length * bucketCapacity(sizes);
    }

    /** The class a block of {@code length} bytes rounds up to, or -1 when it is larger than every class. */
    public int sizeClassOf(int length) {
        for (int c = 0; c < sizes.length; c++) {
            if (length <= sizes[c]) {
                return c;
            }
        }
        return -1;
    }

    public int slotSize(int sizeClass) {
        return sizes[sizeClass];
    }

    public int largestSlot() {
        return sizes[sizes.length - 1];
    }

    /**
     * Takes a slot for a block of {@code length} bytes: a partly used bucket of its class first, then an
     * empty bucket of its class, then an empty bucket taken over from another class.
     *
     * @return the slot's offset, or {@link #NO_SPACE}
     * @throws IllegalArgumentException when the block is larger than the largest class
     */
    public synchronized long allocate(int length) {
        int c = sizeClassOf(length);
        if (c < 0) {
            throw new IllegalArgumentException("a block of " + length + " bytes is larger than the largest bucket size "
                + largestSlot());
        }
        SizeClass sc = classes[c];
        Bucket b = first(sc.partlyUsed);
        if (b == null) {
            b = first(sc.empty);
        }
        if (b == null) {
            b = takeEmptyBucketFromAnotherClass(c);
        }
        if (b == null) {
            return NO_SPACE;
        }
        long offset = b.allocate();
        sc.empty.remove(b);
        if (b.hasFreeSlot()) {
            sc.partlyUsed.add(b);
        } else {
            sc.partlyUsed.remove(b);
        }
        usedBytes += sc.slotSize;
        return offset;
    }

    private Bucket takeEmptyBucketFromAnotherClass(int target) {
        for (int d = 0; d < classes.length; d++) {
            SizeClass other = classes[d];
            if (d == target || other.empty.isEmpty() || other.buckets.size() <= 1) {
                continue; // the last bucket of a class is never taken
            }
            Bucket b = first(other.empty);
            other.empty.remove(b);
            other.buckets.remove(b);
            b.assign(target, sizes[target]);
            classes[target].buckets.add(b);
            reassignments++;
            return b;
        }
        return null;
    }

    private static Bucket first(LinkedHashSet<Bucket> set) {
        Iterator<Bucket> it = set.iterator();
        return it.hasNext() ? it.next() : null;
    }

    /** Gives back the slot at {@code offset}; returns its size. */
    public synchronized int free(long offset) {
        Bucket b = bucketAt(offset);
        SizeClass sc = classes[b.sizeClass()];
        b.free(offset);
        usedBytes -= sc.slotSize;
        if (b.isCompletelyFree()) {
            sc.partlyUsed.remove(b);
            sc.empty.add(b);
        } else {
            sc.partlyUsed.add(b);
        }
        return sc.slotSize;
    }

    private Bucket bucketAt(long offset) {
        long i = offset / bucketCapacity;
        if (offset < 0 || i >= buckets.length) {
            throw new IllegalArgumentException("offset " + offset + " is outside the cache");
        }
        return buckets[(int) i];
    }

    /** The index of the bucket holding {@code offset}. */
    public int bucketIndex(long offset) {
        return (int) (offset / bucketCapacity);
    }

    public long bucketCapacity() {
        return bucketCapacity;
    }

    public int bucketCount() {
        return buckets.length;
    }

    public long capacity() {
        return buckets.length * bucketCapacity;
    }

    /** Bytes of the slots in use (block bytes plus the round-up waste). */
    public synchronized long usedBytes() {
        return usedBytes;
    }

    /** How many times an empty bucket moved to another size class. */
    public synchronized long reassignments() {
        return reassignments;
    }

    public synchronized ClassStats[] classStats() {
        ClassStats[] out = new ClassStats[classes.length];
        for (int c = 0; c < classes.length; c++) {
            long slots = 0;
            long free = 0;
            for (Bucket b : classes[c].buckets) {
                slots += b.slotCount();
                free += b.freeCount();
            }
            out[c] = new ClassStats(classes[c].slotSize, classes[c].buckets.size(), slots, free);
        }
        return out;
    }

    /** The size class bucket {@code index} holds now. */
    public synchronized int sizeClassOfBucket(int index) {
        return buckets[index].sizeClass();
    }

    /**
     * Whether emptying bucket {@code index} would give class {@code target} room: it holds that class, or
     * its class has other buckets (so the allocator may take it over once empty).
     */
    public synchronized boolean emptyingHelps(int index, int target) {
        int c = buckets[index].sizeClass();
        return c == target || classes[c].buckets.size() > 1;
    }
}
