package org.heaplab.core.cache.bucket;

import java.util.BitSet;

/**
 * One bucket: a fixed range of {@code capacity} bytes of cache memory (4 x the largest size class) cut into
 * equal slots of one size class, with a free list of slot numbers. A bucket changes its size class only
 * while it is completely free ({@link #assign}); that is the whole defragmentation story of a BucketCache.
 *
 * <p>Thread safety: none; the {@link BucketAllocator} guards every bucket with its own lock.
 */
final class Bucket {
    final int index;
    final long baseOffset;
    private final long capacity;
    private int sizeClass = -1;
    private int slotSize;
    private int slotCount;
    private int[] freeSlots = new int[0];
    private int freeCount;
    /** Slots in use: catches a slot freed twice, which would hand one slot to two blocks. */
    private BitSet used = new BitSet();

    Bucket(int index, long capacity) {
        this.index = index;
        this.capacity = capacity;
        this.baseOffset = index * capacity;
    }

    /** Makes this (completely free) bucket hold slots of {@code slotSize} bytes. */
    void assign(int sizeClass, int slotSize) {
        if (usedCount() != 0) {
            throw new IllegalStateException("bucket " + index + " still holds " + usedCount() + " blocks");
        }
        this.sizeClass = sizeClass;
        this.slotSize = slotSize;
        this.slotCount = (int) (capacity / slotSize);
        this.freeSlots = new int[slotCount];
        for (int i = 0; i < slotCount; i++) {
            freeSlots[i] = slotCount - 1 - i; // hand out slot 0 first: easier to follow in a debugger
        }
        this.freeCount = slotCount;
        this.used = new BitSet(slotCount);
    }

    /** The cache offset of a free slot, now taken. Call only when {@link #hasFreeSlot}. */
    long allocate() {
        int slot = freeSlots[--freeCount];
        used.set(slot);
        return baseOffset + (long) slot * slotSize;
    }

    void free(long offset) {
        long rel = offset - baseOffset;
        if (rel < 0 || rel >= (long) slotCount * slotSize || rel % slotSize != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not a slot of bucket " + index);
        }
        int slot = (int) (rel / slotSize);
        if (!used.get(slot)) {
            throw new IllegalStateException("bucket " + index + ": slot at offset " + offset + " freed twice");
        }
        used.clear(slot);
        freeSlots[freeCount++] = slot;
    }

    int sizeClass() {
        return sizeClass;
    }

    int slotSize() {
        return slotSize;
    }

    int slotCount() {
        return slotCount;
    }

    int freeCount() {
        return freeCount;
    }

    int usedCount() {
        return slotCount - freeCount;
    }

    boolean hasFreeSlot() {
        return freeCount > 0;
    }

    boolean isCompletelyFree() {
        return freeCount == slotCount;
    }
}
