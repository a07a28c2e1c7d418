package org.heaplab.core.cache.bucket;

import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.core.cache.BlockPriority;
import org.heaplab.core.cache.BlockType;

/**
 * A block stored in a bucket slot: where (offset, length, slot size), what (type), its eviction group and
 * last access, and its reference count.
 *
 * <p>Reference counting (HBASE-22005): the cache's backing map holds one reference from the moment the
 * entry is published; every reader that gets the block holds one more until it releases it. The slot is
 * freed, and may be reused for another block, only when the count reaches zero. Hence eviction only
 * removes the entry from the map and drops the map's reference: a block still read by an in-flight RPC
 * keeps its bytes until that RPC lets go. Once the count is zero it never rises again
 * ({@link #tryRetain} fails), so a reader can never revive a freed slot.
 *
 * <p>Thread safety: the count is atomic; priority and access time are volatile hints for eviction.
 */
final class BucketEntry {
    final long offset;
    final int length;
    final int slotSize;
    final BlockType type;
    private volatile BlockPriority priority;
    private volatile long lastAccess;
    private final AtomicInteger refCount = new AtomicInteger(1); // the backing map's

    BucketEntry(long offset, int length, int slotSize, BlockType type, BlockPriority priority, long now) {
        this.offset = offset;
        this.length = length;
        this.slotSize = slotSize;
        this.type = type;
        this.priority = priority;
        this.lastAccess = now;
    }

    /** Takes one reference unless the entry is already freed (count zero). */
    boolean tryRetain() {
        // BEGIN SOLUTION bucket-refcount
        while (true) {
            int n = refCount.get();
            if (n <= 0) {
                return false;
            }
            if (refCount.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        // END SOLUTION bucket-refcount
        // STUB bucket-refcount: throw new UnsupportedOperationException("not implemented: labs/04-offheap-read/README.md, Build it yourself (bucket-refcount)");
    }

    /** Gives back one reference; true when it was the last (the caller then frees the slot). */
    boolean release() {
        // BEGIN SOLUTION bucket-refcount
        int n = refCount.decrementAndGet();
        if (n < 0) {
            throw new IllegalStateException("bucket entry at offset " + offset + " released more often than retained");
        }
        return n == 0;
        // END SOLUTION bucket-refcount
        // STUB bucket-refcount: throw new UnsupportedOperationException("not implemented: labs/04-offheap-read/README.md, Build it yourself (bucket-refcount)");
    }

    int refCount() {
        return refCount.get();
    }

    /** Only the backing map holds it: eviction may take it now. */
    boolean isUnreferenced() {
        return refCount.get() == 1;
    }

    /** A read: SINGLE becomes MULTI, and the entry becomes the most recently used of its group. */
    void accessed(long now) {
        lastAccess = now;
        BlockPriority p = priority;
        if (p == BlockPriority.SINGLE) {
            priority = p.accessed();
        }
    }

    BlockPriority priority() {
        return priority;
    }

    long lastAccess() {
        return lastAccess;
    }

    int wastedBytes() {
        return slotSize - length;
    }
}
