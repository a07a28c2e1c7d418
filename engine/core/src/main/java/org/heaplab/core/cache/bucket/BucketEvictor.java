package org.heaplab.core.cache.bucket;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockPriority;
import org.heaplab.core.cache.CacheKeys;

/**
 * Frees bucket slots (HBase's BucketCache.freeSpace), run by a writer thread when the used slots exceed
 * the accept factor (0.95) or when no slot of a block's class is left.
 *
 * <p>{@link #freeSpace}: the target is, per size class, enough free slots for (1 - minFactor) = 15 % of
 * the class, plus 10 % extra. Blocks are grouped single / multi / memory; each group has a fair share of
 * the cache (25 / 50 / 25 % of capacity x minFactor); groups that overflow their share give up their
 * least recently used blocks first, each at most its overflow; if that is not enough, single, then multi,
 * then memory blocks go. {@link #freeWholeBucket}: when a class still has no slot (its buckets are full
 * and no bucket is empty), the least occupied bucket that can change class is emptied entirely,
 * whatever the age of its blocks (HBASE-16630: fragmentation otherwise starves the class).
 *
 * <p>Blocks referenced by a reader (count above the map's one) are skipped: eviction never frees memory
 * a response is still being built from. If a reader takes a reference just as eviction removes the entry,
 * the slot is freed by that reader's release instead.
 *
 * <p>Thread safety: one run at a time (a lock); the maps and the allocator are safe for concurrent use.
 */
final class BucketEvictor {
    /**
     * Removes {@code key -> entry} from the backing map (if still there) and drops the map's reference;
     * true if the slot was freed now. The cache counts the evicted block.
     */
    interface Evict {
        boolean evict(BlockCacheKey key, BucketEntry entry);
    }

    private final BucketAllocator allocator;
    private final Map<BlockCacheKey, BucketEntry> backingMap;
    private final Evict evict;
    private final float minFactor;
    private final float extraFreeFactor;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong skippedReferenced = new AtomicLong();

    BucketEvictor(BucketAllocator allocator, Map<BlockCacheKey, BucketEntry> backingMap, Evict evict,
                  float minFactor, float extraFreeFactor) {
        this.allocator = allocator;
        this.backingMap = backingMap;
        this.evict = evict;
        this.minFactor = minFactor;
        this.extraFreeFactor = extraFreeFactor;
    }

    /** Runs {@link #freeSpace} unless a run is already under way (then that run does the work). */
    void tryFreeSpace() {
        if (lock.tryLock()) {
            try {
                freeSpaceLocked();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Frees slots until every size class has its free goal; returns the bytes freed. */
    long freeSpace() {
        lock.lock();
        try {
            return freeSpaceLocked();
        } finally {
            lock.unlock();
        }
    }

    private long freeSpaceLocked() {
        long bytesToFree = 0;
        for (BucketAllocator.ClassStats c : allocator.classStats()) {
            long goal = Math.max(1, (long) Math.floor(c.slots() * (1 - minFactor)));
            if (c.freeSlots() < goal) {
                bytesToFree += (goal - c.freeSlots()) * c.slotSize();
            }
        }
        if (bytesToFree <= 0) {
            return 0;
        }
        runs.incrementAndGet();
        long target = (long) (bytesToFree * (1 + extraFreeFactor));
        Map<BlockPriority, Group> groups = groupUnreferenced();
        long capacity = allocator.capacity();
        List<Group> overflowing = new ArrayList<>();
        for (Group g : groups.values()) {
            g.share = (long) (capacity * minFactor * share(g.priority));
            if (g.overflow() > 0) {
                overflowing.add(g);
            }
        }
        overflowing.sort(Comparator.comparingLong(Group::overflow).reversed());
        long freed = 0;
        int left = overflowing.size();
        for (Group g : overflowing) {
            freed += g.free(Math.min(g.overflow(), (target - freed) / left));
            left--;
        }
        for (BlockPriority p : BlockPriority.values()) { // still short: single, then multi, then memory
            if (freed >= target) {
                break;
            }
            freed += groups.get(p).free(target - freed);
        }
        return freed;
    }

    private static float share(BlockPriority p) {
        return switch (p) {
            case SINGLE -> CacheKeys.BUCKET_SINGLE_FACTOR;
            case MULTI -> CacheKeys.BUCKET_MULTI_FACTOR;
            case MEMORY -> CacheKeys.BUCKET_MEMORY_FACTOR;
        };
    }

    private Map<BlockPriority, Group> groupUnreferenced() {
        Map<BlockPriority, Group> groups = new EnumMap<>(BlockPriority.class);
        for (BlockPriority p : BlockPriority.values()) {
            groups.put(p, new Group(p));
        }
        for (Map.Entry<BlockCacheKey, BucketEntry> e : backingMap.entrySet()) {
            BucketEntry be = e.getValue();
            if (be.isUnreferenced()) {
                groups.get(be.priority()).add(e.getKey(), be);
            } else {
                skippedReferenced.incrementAndGet();
            }
        }
        return groups;
    }

    /**
     * Empties the least occupied bucket that, once empty, can hold class {@code sizeClass} and that no
     * reader references; returns the bytes freed (0 when no bucket qualifies).
     */
    long freeWholeBucket(int sizeClass) {
        lock.lock();
        try {
            Map<Integer, List<Map.Entry<BlockCacheKey, BucketEntry>>> byBucket = new HashMap<>();
            Set<Integer> pinned = new HashSet<>();
            for (Map.Entry<BlockCacheKey, BucketEntry> e : backingMap.entrySet()) {
                int b = allocator.bucketIndex(e.getValue().offset);
                byBucket.computeIfAbsent(b, k -> new ArrayList<>()).add(e);
                if (!e.getValue().isUnreferenced()) {
                    pinned.add(b);
                }
            }
            Integer best = null;
            for (Map.Entry<Integer, List<Map.Entry<BlockCacheKey, BucketEntry>>> b : byBucket.entrySet()) {
                if (!pinned.contains(b.getKey()) && allocator.emptyingHelps(b.getKey(), sizeClass)
                    && (best == null || b.getValue().size() < byBucket.get(best).size())) {
                    best = b.getKey();
                }
            }
            if (best == null) {
                return 0;
            }
            runs.incrementAndGet();
            long freed = 0;
            for (Map.Entry<BlockCacheKey, BucketEntry> e : byBucket.get(best)) {
                if (evict.evict(e.getKey(), e.getValue())) {
                    freed += e.getValue().slotSize;
                }
            }
            return freed;
        } finally {
            lock.unlock();
        }
    }

    long runs() {
        return runs.get();
    }

    /** Entries passed over by eviction runs because a reader held them (counted once per run). */
    long skippedReferenced() {
        return skippedReferenced.get();
    }

    /**
     * An entry as this run found it. Its access time is read once: readers keep touching entries while the
     * list is sorted, and a sort whose keys change under it breaks (TimSort throws "Comparison method
     * violates its general contract", which failed the cache write that ran the eviction).
     */
    private record Candidate(BlockCacheKey key, BucketEntry entry, long lastAccess) {
    }

    /** The unreferenced blocks of one priority, oldest access first when freeing. */
    private final class Group {
        final BlockPriority priority;
        final List<Candidate> entries = new ArrayList<>();
        long bytes;
        long share;

        Group(BlockPriority priority) {
            this.priority = priority;
        }

        void add(BlockCacheKey key, BucketEntry e) {
            entries.add(new Candidate(key, e, e.lastAccess()));
            bytes += e.slotSize;
        }

        long overflow() {
            return bytes - share;
        }

        /** Evicts least recently used entries until {@code toFree} bytes are freed; returns the bytes freed. */
        long free(long toFree) {
            if (toFree <= 0) {
                return 0;
            }
            entries.sort(Comparator.comparingLong(Candidate::lastAccess));
            long freed = 0;
            int i = 0;
            while (freed < toFree && i < entries.size()) {
                Candidate c = entries.get(i++);
                if (evict.evict(c.key(), c.entry())) {
                    freed += c.entry().slotSize;
                }
            }
            entries.subList(0, i).clear();
            bytes -= freed;
            return freed;
        }
    }
}
