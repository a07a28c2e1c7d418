package org.heaplab.core.cache;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hits and misses per {@link BlockType} of one cache. LongAdders: every read counts, from many handler
 * threads, and a shared AtomicLong would be a contention point of its own. Thread safe.
 */
public final class TypeCounters {
    private final LongAdder[] hits = new LongAdder[BlockType.values().length];
    private final LongAdder[] misses = new LongAdder[BlockType.values().length];

    public TypeCounters() {
        for (int i = 0; i < hits.length; i++) {
            hits[i] = new LongAdder();
            misses[i] = new LongAdder();
        }
    }

    public void hit(BlockType type) {
        hits[type.ordinal()].increment();
    }

    public void miss(BlockType type) {
        misses[type.ordinal()].increment();
    }

    /** A snapshot with every block type present. */
    public Map<BlockType, CacheMetrics.Counts> snapshot() {
        Map<BlockType, CacheMetrics.Counts> m = new EnumMap<>(BlockType.class);
        for (BlockType t : BlockType.values()) {
            m.put(t, new CacheMetrics.Counts(hits[t.ordinal()].sum(), misses[t.ordinal()].sum()));
        }
        return m;
    }
}
