package org.heaplab.core.wal;

import java.util.concurrent.CompletableFuture;

/**
 * What both MVCC orders share: the queue of begun writes and the read point over it. Subclasses differ
 * only in {@link Mvcc#begin}, which is the whole lesson of {@link LegacyMvcc} vs {@link PreassignedMvcc}.
 *
 * <p>Thread safety: as {@link Mvcc}; {@link PendingWrites} is thread safe.
 */
abstract class AbstractMvcc implements Mvcc {
    protected final PendingWrites queue;

    AbstractMvcc(long initialReadPoint) {
        this.queue = new PendingWrites(initialReadPoint);
    }

    @Override
    public final void complete(WriteEntry e) {
        queue.complete(e);
    }

    @Override
    public final void awaitVisible(WriteEntry e) throws InterruptedException {
        queue.waitFor(e.seqId());
    }

    @Override
    public final CompletableFuture<Void> whenVisible(WriteEntry e) {
        return queue.whenVisible(e.seqId());
    }

    @Override
    public final long readPoint() {
        return queue.readPoint();
    }
}
