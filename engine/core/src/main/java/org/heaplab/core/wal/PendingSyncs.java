package org.heaplab.core.wal;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The appends of a {@link GroupCommitWal} waiting for a sync, how far the file is synced (the highest
 * txid written to the channel, {@code flushed}, and forced to the device, {@code forced}), and the first
 * failure, after which the WAL accepts nothing and every waiting append fails.
 *
 * <p>Thread safety: every method locks this object; futures are completed outside the lock.
 *
 * <p>Invariants: each queue is in txid order (the consumer registers in ring order, before the append
 * can be covered by any sync); both watermarks only grow; an ASYNC/SYNC append completes when
 * {@code flushed >= txid}, an FSYNC append when {@code forced >= txid}.
 */
final class PendingSyncs {
    private final ArrayDeque<WalAppend> awaitingFlush = new ArrayDeque<>();
    private final ArrayDeque<WalAppend> awaitingForce = new ArrayDeque<>();
    private volatile long flushed = -1;
    private volatile long forced = -1;
    private volatile IOException failure;
    private final CompletableFuture<IOException> failed = new CompletableFuture<>();

    /** Consumer: {@code a} (ASYNC, SYNC or FSYNC) waits for the sync that covers its txid. */
    synchronized void register(WalAppend a) {
        (a.durability() == Durability.FSYNC_WAL ? awaitingForce : awaitingFlush).addLast(a);
    }

    /** Every txid up to {@code covered} is written to the channel: completes ASYNC and SYNC appends. */
    void flushed(long covered) {
        List<WalAppend> done = new ArrayList<>();
        synchronized (this) {
            flushed = Math.max(flushed, covered);
            while (!awaitingFlush.isEmpty() && awaitingFlush.peekFirst().txid() <= flushed) {
                done.add(awaitingFlush.pollFirst());
            }
        }
        done.forEach(WalAppend::complete);
    }

    /** Every txid up to {@code covered} is forced: completes FSYNC appends. */
    void forced(long covered) {
        List<WalAppend> done = new ArrayList<>();
        synchronized (this) {
            forced = Math.max(forced, covered);
            while (!awaitingForce.isEmpty() && awaitingForce.peekFirst().txid() <= forced) {
                done.add(awaitingForce.pollFirst());
            }
        }
        done.forEach(WalAppend::complete);
    }

    /** Removes every waiting append (to fail it). */
    private synchronized List<WalAppend> drain() {
        List<WalAppend> all = new ArrayList<>(awaitingFlush);
        all.addAll(awaitingForce);
        awaitingFlush.clear();
        awaitingForce.clear();
        return all;
    }

    /** The first failure, or null while the WAL works. */
    IOException failure() {
        return failure;
    }

    /** Completes with the first failure (on the failing thread, once the appends waiting then are failed). */
    CompletableFuture<IOException> failed() {
        return failed;
    }

    /** Records the first failure (later ones are not kept) and fails every waiting append with it. */
    void failAll(String walName, Throwable cause) {
        IOException io = cause instanceof IOException e ? e : new IOException(cause.toString(), cause);
        synchronized (this) {
            if (failure == null) {
                failure = io;
            }
        }
        failWaiting("WAL " + walName + " failed, append not durable: " + io.getMessage(), io);
        failed.complete(failure); // after the waiting appends failed: a listener may stop the server
    }

    /** Fails every waiting append (the WAL failed or closed before covering it). */
    void failWaiting(String message, IOException cause) {
        for (WalAppend a : drain()) {
            a.fail(new IOException(message + " (txid " + a.txid() + ")", cause));
        }
    }

    long flushedTxid() {
        return flushed;
    }

    long forcedTxid() {
        return forced;
    }
}
