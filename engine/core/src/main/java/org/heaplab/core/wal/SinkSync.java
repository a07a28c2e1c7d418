package org.heaplab.core.wal;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Writes a {@link GroupCommitWal}'s sink to the file and forces it, for the consumer thread (writes) and
 * the syncer threads (forces), each at most once per txid it covers, and completes the appends that
 * became durable ({@link PendingSyncs}).
 *
 * <p>Thread safety: writes are serialized by {@code flushLock}, forces by {@code forceLock}; a force
 * never waits for a write in progress. Invariant: a write started when the consumer's appended txid
 * was t writes every record up to t; a force started when the written txid was t covers t.
 */
final class SinkSync {
    private final WalSink sink;
    private final PendingSyncs pending;
    private final LongSupplier appendedTxid;
    private final LongSupplier appendedBytes;
    private final Object flushLock = new Object();
    private final Object forceLock = new Object();
    private final AtomicLong syncCount = new AtomicLong();
    private final AtomicLong forceCount = new AtomicLong();
    /** Bytes known to be written to the file (a lower bound). */
    private volatile long flushedBytes;

    SinkSync(WalSink sink, PendingSyncs pending, LongSupplier appendedTxid, LongSupplier appendedBytes) {
        this.sink = sink;
        this.pending = pending;
        this.appendedTxid = appendedTxid;
        this.appendedBytes = appendedBytes;
    }

    /** Writes everything appended so far unless {@code txid} is already written (or the WAL failed). */
    void flushUpTo(long txid) throws IOException {
        synchronized (flushLock) {
            long bytes = appendedBytes.getAsLong(); // read before the txid: a lower bound of what covered holds
            long covered = appendedTxid.getAsLong();
            if (pending.flushedTxid() < txid && pending.failure() == null) {
                sink.flush();
                syncCount.incrementAndGet();
                pending.flushed(covered);
            }
            if (pending.flushedTxid() >= covered) {
                flushedBytes = Math.max(flushedBytes, bytes);
            }
        }
    }

    /** Forces what is written unless {@code txid} is already forced (or the WAL failed). */
    void forceUpTo(long txid) throws IOException {
        synchronized (forceLock) {
            if (pending.forcedTxid() < txid && pending.failure() == null) {
                long covered = pending.flushedTxid();
                sink.force();
                forceCount.incrementAndGet();
                pending.forced(covered);
            }
        }
    }

    long flushedBytes() {
        return flushedBytes;
    }

    /** Writes to the channel done so far. */
    long syncCount() {
        return syncCount.get();
    }

    /** Forces ({@code FileChannel.force}) done so far. */
    long forceCount() {
        return forceCount.get();
    }
}
