package org.heaplab.core.wal;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import org.heaplab.core.cell.Cell;

/**
 * One append travelling through {@link GroupCommitWal}'s ring: the edit, its durability, its ring
 * sequence (txid) and its WAL sequence id, and the future its handler waits on.
 *
 * <p>The sequence id is either pre-assigned by the handler before publishing ({@link PreassignedMvcc})
 * or assigned by the consumer thread when it reaches the slot ({@link LegacyMvcc}); in the second case
 * the handler blocks in {@link #awaitSeqId} on a latch the consumer counts down (the HBASE-16698
 * shape). Either way {@code seqId = firstSeqId + txid}, so sequence order is ring order is file order.
 *
 * <p>{@link #durable()} completes (with the sequence id) when the record is as durable as its
 * durability asks: written to the channel for ASYNC_WAL and SYNC_WAL, forced for FSYNC_WAL, at once
 * for SKIP_WAL; or completes exceptionally when the WAL failed or closed first.
 *
 * <p>Thread safety: fields are set by the producer before publishing, or by the consumer before
 * the latch is counted down; the future is thread safe.
 */
public final class WalAppend {
    /** HBase's FSWALEntry: the key and the edit the region made (both null for a sync barrier). */
    private final WALKey key;
    private final WALEdit edit;
    private final Durability durability;
    private final LongConsumer onAssigned;
    /** Counted down by the consumer; null for an append pre-assigned by its handler (nobody waits). */
    private final CountDownLatch assigned;
    private final CompletableFuture<Long> durable = new CompletableFuture<>();
    private final CompletableFuture<Void> cellsRead = new CompletableFuture<>();
    private volatile long seqId = -1;
    private long txid = -1;

    /**
     * An edit; {@code edit == null} makes a sync barrier (no record). {@code preassigned}: the publisher
     * will {@link #preassign} the id (no latch needed); else the consumer assigns it.
     */
    WalAppend(WALKey key, WALEdit edit, Durability durability, LongConsumer onAssigned, boolean preassigned) {
        this.assigned = preassigned ? null : new CountDownLatch(1);
        this.key = key;
        this.edit = edit;
        this.durability = durability.resolve();
        this.onAssigned = onAssigned;
    }

    static WalAppend barrier(Durability durability) {
        return new WalAppend(null, null, durability, null, true);
    }

    boolean isBarrier() {
        return edit == null;
    }

    /** True when the record should be written (not SKIP_WAL, not a barrier). */
    boolean hasRecord() {
        return edit != null && durability != Durability.SKIP_WAL;
    }

    public Durability durability() {
        return durability;
    }

    public String region() {
        return key == null ? null : key.region();
    }

    /** The ring sequence (set when the slot is claimed). */
    public long txid() {
        return txid;
    }

    void setTxid(long txid) {
        this.txid = txid;
    }

    /** Pre-assigned by the handler (before publishing): no latch wait. */
    void preassign(long id) {
        seqId = id;
        if (assigned != null) {
            assigned.countDown();
        }
    }

    boolean isAssigned() {
        return seqId >= 0;
    }

    /** Consumer thread: stamps the sequence id, runs the assignment callback, releases the handler. */
    void assignByConsumer(long id) {
        seqId = id;
        try {
            if (onAssigned != null) {
                onAssigned.accept(id);
            }
        } finally {
            if (assigned != null) {
                assigned.countDown();
            }
        }
    }

    /** The sequence id, or -1 while the consumer has not assigned it yet. */
    public long seqId() {
        return seqId;
    }

    /** Waits until the sequence id is known (at once when pre-assigned). */
    public long awaitSeqId() throws InterruptedException {
        if (assigned != null) {
            assigned.await();
        }
        return seqId;
    }

    /** The record's size in the file, roughly (cells plus a fixed overhead): for the buffering bounds. */
    long approximateBytes() {
        long n = 64;
        List<Cell> cells = edit.cells();
        for (int i = 0; i < cells.size(); i++) {
            n += cells.get(i).getSerializedLength();
        }
        return n;
    }

    /** Encodes this append's record into {@code sink} (consumer thread): the cells are read here. */
    void appendTo(WalSink sink) throws IOException {
        sink.append(seqId, key.table(), key.region(), edit.cells());
    }

    /** Completes with the sequence id once durable as asked (see the class comment). */
    public CompletableFuture<Long> durable() {
        return durable;
    }

    /**
     * {@link #awaitDurable} while {@code worker}, the thread that completes it, lives; returns at once
     * if the worker died first.
     */
    void awaitDurableWhileAlive(Thread worker) throws IOException, InterruptedException {
        while (!durable.isDone() && worker.isAlive()) {
            try {
                durable.get(100, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // loop: done (normally or not) or the worker died
            }
        }
        if (durable.isDone()) {
            awaitDurable();
        }
    }

    /** Waits for {@link #durable()}; rethrows its failure as the IOException it carries. */
    public long awaitDurable() throws IOException, InterruptedException {
        try {
            return durable.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw new IOException(io.getMessage(), io);
            }
            throw new IOException("WAL append failed: " + c, c);
        }
    }

    /**
     * Completes once the WAL will not read this append's cells again: the consumer thread encoded them
     * (or skipped them: SKIP_WAL, a failed WAL). Never later than {@link #durable()}. A caller whose
     * cells live in a reused buffer may release it from then on, even for ASYNC_WAL before any sync.
     */
    public CompletableFuture<Void> cellsRead() {
        return cellsRead;
    }

    /** Consumer thread: done with the cells. */
    void cellsDone() {
        cellsRead.complete(null);
    }

    void complete() {
        cellsRead.complete(null);
        durable.complete(seqId);
    }

    void fail(IOException e) {
        cellsRead.complete(null);
        durable.completeExceptionally(e);
    }
}
