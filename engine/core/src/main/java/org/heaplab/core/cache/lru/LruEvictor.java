package org.heaplab.core.cache.lru;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockPriority;

/**
 * One eviction run of an LruBlockCache (HBase's LruBlockCache.evict): frees {@code used - min x capacity}
 * bytes. Blocks are grouped by priority; each group has a fair share of capacity x min x its factor
 * (single / multi / memory 25 / 50 / 25 %). Groups are taken from the least to the most overflowing; a
 * group that overflows gives up its least recently used blocks, at most its overflow and at most an
 * equal part of what is still to free, so the most overflowing group, taken last, frees the rest. A
 * scan that reads many blocks once (SINGLE) thus evicts its own blocks, not the MULTI blocks that are
 * read again and again, nor an IN_MEMORY family's blocks while they stay within their share.
 *
 * <p>Thread safety: the caller runs one eviction at a time; the map is concurrent.
 */
final class LruEvictor {
    /** Removes one block if it is still cached; returns the heap it freed (0 if already gone). */
    interface Remove {
        long remove(BlockCacheKey key, LruCachedBlock block);
    }

    private LruEvictor() {
    }

    /** Frees {@code bytesToFree}; returns the blocks evicted. */
    static long evict(Map<BlockCacheKey, LruCachedBlock> blocks, LruCacheConfig config, long bytesToFree, Remove remove) {
        Map<BlockPriority, Group> groups = new EnumMap<>(BlockPriority.class);
        for (BlockPriority p : BlockPriority.values()) {
            groups.put(p, new Group(config.share(p)));
        }
        for (Map.Entry<BlockCacheKey, LruCachedBlock> e : blocks.entrySet()) {
            groups.get(e.getValue().priority()).add(e.getKey(), e.getValue());
        }
        List<Group> order = new ArrayList<>(groups.values());
        order.sort(Comparator.comparingLong(Group::overflow));
        long freed = 0;
        long evicted = 0;
        int remaining = order.size();
        for (Group g : order) {
            long overflow = g.overflow();
            if (overflow > 0) {
                long[] r = g.free(Math.min(overflow, (bytesToFree - freed) / remaining), remove);
                freed += r[0];
                evicted += r[1];
            }
            remaining--;
        }
        return evicted;
    }

    /**
     * A block as this run found it. Its access time is read once: readers keep touching blocks while the
     * list is sorted, and a sort whose keys change under it breaks (TimSort throws "Comparison method
     * violates its general contract", which killed the eviction thread and froze the cache).
     */
    private record Candidate(BlockCacheKey key, LruCachedBlock block, long lastAccess) {
    }

    /** The blocks of one priority. */
    private static final class Group {
        final long share;
        final List<Candidate> entries = new ArrayList<>();
        long bytes;

        Group(long share) {
            this.share = share;
        }

        void add(BlockCacheKey key, LruCachedBlock b) {
            entries.add(new Candidate(key, b, b.lastAccess()));
            bytes += b.heapSize;
        }

        long overflow() {
            return bytes - share;
        }

        /** Evicts least recently used first until {@code toFree} is freed; returns {bytes freed, blocks evicted}. */
        long[] free(long toFree, Remove remove) {
            entries.sort(Comparator.comparingLong(Candidate::lastAccess));
            long freed = 0;
            long n = 0;
            for (int i = 0; i < entries.size() && freed < toFree; i++) {
                long f = remove.remove(entries.get(i).key(), entries.get(i).block());
                if (f > 0) {
                    freed += f;
                    n++;
                }
            }
            return new long[] {freed, n};
        }
    }
}
