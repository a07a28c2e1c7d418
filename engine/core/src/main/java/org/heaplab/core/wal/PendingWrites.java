package org.heaplab.core.wal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The read-point half that both {@link Mvcc} implementations share: a queue of begun writes in
 * sequence order, and a read point that moves to the last write of a completed prefix.
 *
 * <p>Thread safety: every method locks this object.
 *
 * <p>Invariants: queued sequence ids strictly increase; the read point only grows and is always below
 * the sequence id of every queued (begun, not completed) write, so a reader at the read point never
 * sees part of an incomplete write.
 */
final class PendingWrites {
    private final ArrayDeque<WriteEntry> queue = new ArrayDeque<>();
    private volatile long readPoint;
    private long lastQueued;
    /** Futures waiting for the read point to reach a sequence id (staged write path). Guarded by this. */
    private final TreeMap<Long, CompletableFuture<Void>> visibleWaiters = new TreeMap<>();

    /** @param initialReadPoint every write up to it is complete (firstSeqId - 1 for a new log) */
    PendingWrites(long initialReadPoint) {
        this.readPoint = initialReadPoint;
        this.lastQueued = initialReadPoint;
    }

    /** Adds a begun write; its sequence id must exceed every id queued before. */
    synchronized void add(WriteEntry e) {
        if (e.seqId() <= lastQueued) {
            throw new IllegalStateException("write " + e.seqId() + " begun after write " + lastQueued
                + ": sequence order must equal begin order");
        }
        lastQueued = e.seqId();
        queue.addLast(e);
    }

    /**
     * Marks {@code e} complete and advances the read point over the completed prefix. Futures of
     * {@link #whenVisible} that the new read point reaches complete on this thread, outside the lock.
     */
    void complete(WriteEntry e) {
        List<CompletableFuture<Void>> ready = null;
        synchronized (this) {
            if (e.completed) {
                return;
            }
            e.completed = true;
            long rp = readPoint;
            while (!queue.isEmpty() && queue.peekFirst().completed) {
                rp = queue.pollFirst().seqId();
            }
            if (rp != readPoint) {
                readPoint = rp;
                notifyAll();
                while (!visibleWaiters.isEmpty() && visibleWaiters.firstKey() <= rp) {
                    if (ready == null) {
                        ready = new ArrayList<>();
                    }
                    ready.add(visibleWaiters.pollFirstEntry().getValue());
                }
            }
        }
        if (ready != null) {
            ready.forEach(f -> f.complete(null));
        }
    }

    /**
     * A future completing once the read point reaches {@code seqId}: at once when it has, else on the
     * thread whose {@link #complete} moves it there (outside this queue's lock).
     */
    synchronized CompletableFuture<Void> whenVisible(long seqId) {
        if (readPoint >= seqId) {
            return CompletableFuture.completedFuture(null);
        }
        return visibleWaiters.computeIfAbsent(seqId, k -> new CompletableFuture<>());
    }

    /** Waits until the read point reaches {@code seqId}. */
    synchronized void waitFor(long seqId) throws InterruptedException {
        while (readPoint < seqId) {
            wait();
        }
    }

    long readPoint() {
        return readPoint;
    }
}
