package org.heaplab.core.wal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A bounded multi-producer, single-consumer ring of slots, addressed by a 64-bit sequence.
 *
 * <pre>
 *   producers:  s = claim()      (atomic increment of the claim cursor; waits while the ring is full)
 *               publish(s, e)    (stores e in slot s &amp; mask, then marks the slot published for s)
 *   consumer:   e = take(s)      (s = 0, 1, 2, ...: waits until slot s is published)
 *               release(s)       (the slot may be reused for s + capacity)
 * </pre>
 *
 * <p>Thread safety: {@link #claim} and {@link #publish} from any number of threads; {@link #take},
 * {@link #highestPublished} and {@link #release} from the one consumer thread only.
 *
 * <p>Invariants: sequences are claimed exactly once each, in increasing order; the consumer sees
 * slots strictly in sequence order, whatever order producers publish in; a slot is reused only after
 * the consumer released the sequence that last used it ({@code claimed - capacity <= released}).
 */
final class WalRingBuffer<E> {
    private final int capacity;
    private final int mask;
    private final AtomicReferenceArray<E> slots;
    /** published[i] = the sequence last published in slot i (-1: never). */
    private final AtomicLongArray published;
    private final AtomicLong claimCursor = new AtomicLong(-1);
    private volatile long released = -1;
    private volatile Thread consumer;

    WalRingBuffer(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two >= 2, got " + capacity);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.slots = new AtomicReferenceArray<>(capacity);
        this.published = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            published.set(i, -1);
        }
    }

    int capacity() {
        return capacity;
    }

    /** Registers the consumer thread, so that publishers can wake it. */
    void setConsumer(Thread t) {
        consumer = t;
    }

    /** Claims the next sequence; waits (spinning, then parking) while its slot is still in use. */
    long claim() {
        long s = claimCursor.incrementAndGet();
        int spins = 0;
        while (s - capacity > released) {
            backOff(spins++);
        }
        return s;
    }

    /** Highest sequence claimed so far (-1 if none). */
    long claimed() {
        return claimCursor.get();
    }

    void publish(long s, E e) {
        int i = (int) (s & mask);
        slots.set(i, e);
        published.set(i, s);
        Thread c = consumer;
        if (c != null) {
            LockSupport.unpark(c);
        }
    }

    /** Consumer: the highest sequence h >= from such that from..h are all published, or from - 1. */
    long highestPublished(long from) {
        long s = from;
        while (s - from < capacity && published.get((int) (s & mask)) == s) {
            s++;
        }
        return s - 1;
    }

    /** Consumer: the element published for {@code s}; call only when {@code s <= highestPublished}. */
    E take(long s) {
        int i = (int) (s & mask);
        if (published.get(i) != s) {
            throw new IllegalStateException("slot " + s + " is not published");
        }
        return slots.get(i);
    }

    /** Consumer: every sequence up to {@code s} is processed; their slots may be reused. */
    void release(long s) {
        for (long q = released + 1; q <= s; q++) {
            slots.set((int) (q & mask), null);
        }
        released = s;
    }

    /** Waiting without a lock: spin briefly, then yield, then park (so waiters do not starve the consumer). */
    static void backOff(int spins) {
        if (spins < 50) {
            Thread.onSpinWait();
        } else if (spins < 60) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(50_000);
        }
    }
}
