package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.conf.Configuration;

/**
 * A write-ahead log with group commit: producers (RPC handlers) put appends into a
 * {@link WalRingBuffer}; one consumer thread takes them in ring order, stamps their sequence ids and
 * hands the records to a {@link WalSink}; after each batch it writes the sink to the file itself and
 * completes the waiting futures, and {@link WalSyncer} threads do the forces.
 *
 * <pre>
 *   handler --claim/publish--&gt; ring --consumer: stamp seqId, sink.append--&gt; buffer
 *   consumer --sink.flush--&gt; complete SYNC/ASYNC futures &lt;= txid
 *   consumer --request(txid)--&gt; syncer i --sink.flush + sink.force--&gt; complete FSYNC futures &lt;= txid
 * </pre>
 *
 * <p>Why the consumer writes: a write without a force lands in the page cache in microseconds, less
 * than handing the batch to another thread and waking it costs (a queue, an unpark, a context switch
 * per batch); a force waits for the device for milliseconds, so it goes to a syncer while the consumer
 * keeps taking appends. HBase 1.x's FSHLog hands every sync to a SyncRunner because its hflush is a
 * round trip to the HDFS pipeline; HBase 2's AsyncFSWAL has no syncer threads either.
 *
 * <p>Durability ({@link Durability}): SKIP_WAL takes a slot (for its sequence id) but writes nothing
 * and completes at once; ASYNC_WAL returns to the caller at once and completes at the next sync
 * (another append's, {@link #sync}, the periodic async flush or {@link #close}); SYNC_WAL completes
 * after a flush (write to the channel) covering it; FSYNC_WAL after a force covering it.
 *
 * <p>Thread safety: {@link #append}, {@link #appendUnassigned}, {@link #sync} and {@link #close} may
 * be called from any threads. The consumer thread alone touches the ring's consumer side and calls
 * {@link WalSink#append}; flushes are serialized by {@code flushLock}, forces by {@code forceLock}.
 *
 * <p>Invariants:
 * <ul>
 *   <li>seqId = firstSeqId + txid (ring sequence): sequence order equals ring order equals file order.
 *   <li>appendedTxid &gt;= flushedTxid &gt;= forcedTxid; each only grows. A flush started when
 *       appendedTxid was t writes every record up to t; a force started when flushedTxid was t covers t.
 *   <li>A future completes normally only when its record is covered (flushed, or forced for FSYNC);
 *       one sync completes every waiting future up to the txid it covered.
 *   <li>After {@link #close} returns every future of every accepted append is complete (normally, or
 *       exceptionally if the WAL failed); a rejected append throws from {@link #append}.
 *   <li>After an I/O failure the WAL accepts nothing more; pending and later futures fail.
 * </ul>
 *
 * <p>Pitfalls: the cells of an append are retained (not copied) until the consumer thread encodes the
 * record, which completes the append's {@link WalAppend#cellsRead()} future (before its
 * {@link WalAppend#durable()} future). A caller whose cells live in a pooled or reused buffer must not
 * release it before then, even for ASYNC_WAL, whose caller does not otherwise wait.
 */
public final class GroupCommitWal implements AutoCloseable {
    /** Number of syncer threads (HBase's key). */
    public static final String SYNCER_COUNT = "hbase.regionserver.hlog.syncer.count";
    public static final int DEFAULT_SYNCER_COUNT = 5;
    /** Ring slots, a power of two (HBase: hbase.regionserver.wal.disruptor.event.count). */
    public static final String RING_SIZE = "hbase.regionserver.wal.disruptor.event.count";
    public static final int DEFAULT_RING_SIZE = 16 * 1024;
    /** How long ASYNC_WAL appends may stay unsynced when nothing else syncs (HBase's key, ms). */
    public static final String ASYNC_FLUSH_INTERVAL = "hbase.regionserver.optionallogflushinterval";
    public static final long DEFAULT_ASYNC_FLUSH_INTERVAL = 1000;
    /** Unflushed bytes at which the consumer asks a syncer to flush even with no sync waiting (HBase 2's key). */
    public static final String BATCH_SIZE = "hbase.wal.batch.size";
    public static final long DEFAULT_BATCH_SIZE = 64 * 1024;
    /**
     * Unflushed bytes at which the consumer flushes itself and so stops taking appends until the file
     * caught up: the ring fills and handlers block (backpressure; HBase gets it from its output stream).
     */
    public static final String MAX_BUFFERED = "heaplab.regionserver.wal.max.buffered.bytes";
    public static final long DEFAULT_MAX_BUFFERED = 32L * 1024 * 1024;

    private final String name;
    private final WalSink sink;
    private final long firstSeqId;
    private final long asyncFlushNanos;
    private final WalRingBuffer<WalAppend> ring;
    private final WalSyncer[] syncers;
    private final Thread consumer;
    private final ReentrantReadWriteLock closeGate = new ReentrantReadWriteLock();
    private final Object flushLock = new Object();
    private final Object forceLock = new Object();
    private final PendingSyncs pending = new PendingSyncs();
    private final AtomicLong syncCount = new AtomicLong();
    private final AtomicLong forceCount = new AtomicLong();
    private volatile long appendedTxid = -1;
    /** Bytes of records appended to the sink (approximate; consumer writes, syncers read). */
    private volatile long appendedBytes;
    /** Bytes known to be written to the file (a lower bound). */
    private volatile long flushedBytes;
    private final long batchBytes;
    private final long maxBufferedBytes;
    private volatile IOException failure;
    private volatile boolean closed;
    private volatile boolean stopping;
    private int nextSyncer;

    /**
     * Starts the consumer and syncer threads over {@code sink}.
     *
     * @param firstSeqId    the sequence id of the first append (above every id already used)
     * @param syncerCount   syncer threads (&gt;= 1)
     * @param ringSize      ring slots, a power of two
     * @param asyncFlushMs  longest time an ASYNC_WAL append waits for a sync when nothing else syncs
     */
    public GroupCommitWal(String name, WalSink sink, long firstSeqId, int syncerCount, int ringSize, long asyncFlushMs) {
        this(name, sink, firstSeqId, syncerCount, ringSize, asyncFlushMs, DEFAULT_BATCH_SIZE, DEFAULT_MAX_BUFFERED);
    }

    /**
     * As above, with the buffering bounds.
     *
     * @param batchBytes       unflushed bytes that trigger a flush request (hbase.wal.batch.size)
     * @param maxBufferedBytes unflushed bytes at which the consumer flushes itself (backpressure)
     */
    public GroupCommitWal(String name, WalSink sink, long firstSeqId, int syncerCount, int ringSize, long asyncFlushMs,
                          long batchBytes, long maxBufferedBytes) {
        if (batchBytes < 1 || maxBufferedBytes < batchBytes) {
            throw new IllegalArgumentException(BATCH_SIZE + " must be >= 1 and " + MAX_BUFFERED + " >= it, got "
                + batchBytes + " and " + maxBufferedBytes);
        }
        this.batchBytes = batchBytes;
        this.maxBufferedBytes = maxBufferedBytes;
        if (syncerCount < 1) {
            throw new IllegalArgumentException(SYNCER_COUNT + " must be >= 1, got " + syncerCount);
        }
        if (firstSeqId < 0 || asyncFlushMs <= 0) {
            throw new IllegalArgumentException("firstSeqId must be >= 0 and asyncFlushMs > 0");
        }
        this.name = name;
        this.sink = sink;
        this.firstSeqId = firstSeqId;
        this.asyncFlushNanos = TimeUnit.MILLISECONDS.toNanos(asyncFlushMs);
        this.ring = new WalRingBuffer<>(ringSize);
        this.syncers = new WalSyncer[syncerCount];
        for (int i = 0; i < syncerCount; i++) {
            syncers[i] = new WalSyncer(this, name + "-syncer-" + i);
            syncers[i].start();
        }
        this.consumer = new Thread(this::runConsumer, name + "-consumer");
        consumer.setDaemon(true);
        ring.setConsumer(consumer);
        consumer.start();
    }

    /** Creates the WAL file {@code file} (see {@link ChannelWalSink}) with the sizes from {@code conf}. */
    public static GroupCommitWal create(Path file, long firstSeqId, Configuration conf) throws IOException {
        int syncerCount = conf.getInt(SYNCER_COUNT, DEFAULT_SYNCER_COUNT);
        int ringSize = conf.getInt(RING_SIZE, DEFAULT_RING_SIZE);
        long asyncFlushMs = conf.getLong(ASYNC_FLUSH_INTERVAL, DEFAULT_ASYNC_FLUSH_INTERVAL);
        long batch = conf.getLong(BATCH_SIZE, DEFAULT_BATCH_SIZE);
        long maxBuffered = conf.getLong(MAX_BUFFERED, DEFAULT_MAX_BUFFERED);
        ChannelWalSink sink = ChannelWalSink.create(file);
        try {
            return new GroupCommitWal(file.getFileName().toString(), sink, firstSeqId, syncerCount, ringSize,
                asyncFlushMs, batch, maxBuffered);
        } catch (RuntimeException e) {
            sink.close();
            throw e;
        }
    }

    /**
     * Appends one region's batch with its sequence id pre-assigned from its ring slot (the handler owns
     * the id when this returns). Does not wait for durability: wait on {@link WalAppend#durable()}.
     * {@link PreassignedMvcc} calls this inside its write-queue lock.
     *
     * @throws IOException when the WAL is closed or has failed
     */
    public WalAppend append(String table, String region, List<? extends Cell> cells, Durability durability)
        throws IOException {
        return publish(new WalAppend(table, region, List.copyOf(cells), durability, null, true), true);
    }

    /**
     * Appends one region's batch whose sequence id the consumer thread assigns when it reaches the slot;
     * {@code onAssigned} runs on the consumer thread, in sequence order, before the handler's
     * {@link WalAppend#awaitSeqId} returns (the 1.x shape {@link LegacyMvcc} models).
     */
    public WalAppend appendUnassigned(String table, String region, List<? extends Cell> cells, Durability durability,
        LongConsumer onAssigned) throws IOException {
        return publish(new WalAppend(table, region, List.copyOf(cells), durability, onAssigned, false), false);
    }

    /**
     * Makes every append accepted so far durable: written to the channel, and forced with
     * {@code force}. Returns a barrier whose future completes then.
     */
    public WalAppend sync(boolean force) throws IOException {
        return publish(WalAppend.barrier(force ? Durability.FSYNC_WAL : Durability.SYNC_WAL), true);
    }

    private WalAppend publish(WalAppend a, boolean preassign) throws IOException {
        closeGate.readLock().lock();
        try {
            if (closed) {
                throw new IOException("WAL " + name + " is closed");
            }
            checkFailure();
            publishOpen(a, preassign);
            return a;
        } finally {
            closeGate.readLock().unlock();
        }
    }

    private void publishOpen(WalAppend a, boolean preassign) {
        long s = ring.claim();
        a.setTxid(s);
        if (preassign) {
            a.preassign(firstSeqId + s);
        }
        ring.publish(s, a);
    }

    private void checkFailure() throws IOException {
        IOException f = failure;
        if (f != null) {
            throw new IOException("WAL " + name + " failed: " + f.getMessage(), f);
        }
    }

    // ---- consumer thread ----

    private void runConsumer() {
        try {
            consume();
        } catch (Throwable t) { // a bug: fail what waits, make close and later appends fail fast
            failAll(t);
        }
    }

    private void consume() {
        long next = 0;
        long lastRequested = -1;
        long lastRequestNanos = System.nanoTime();
        while (true) {
            long high = ring.highestPublished(next);
            if (high >= next) {
                boolean sync = false;
                boolean force = false;
                for (long s = next; s <= high; s++) {
                    WalAppend a = ring.take(s);
                    handle(a, s);
                    sync |= a.durability() == Durability.SYNC_WAL || a.durability() == Durability.FSYNC_WAL;
                    force |= a.durability() == Durability.FSYNC_WAL;
                    if (appendedBytes - flushedBytes >= maxBufferedBytes) {
                        // checked per append (a full ring of big records is far more than the bound):
                        // the file fell behind, so flush here; producers wait on the ring meanwhile
                        syncUpTo(appendedTxid, false);
                    }
                }
                ring.release(high);
                next = high + 1;
                if (!sync && appendedBytes - flushedBytes >= batchBytes) {
                    sync = true; // enough ASYNC bytes buffered: have them written now
                }
                if (sync) {
                    requestSync(high, force);
                    lastRequested = high;
                    lastRequestNanos = System.nanoTime();
                    continue;
                }
            } else if (stopping && ring.claimed() < next) {
                return;
            }
            // ASYNC_WAL appends that no SYNC/FSYNC append has synced: at most asyncFlushNanos later,
            // even under a steady stream of ASYNC_WAL appends
            long appended = appendedTxid;
            if (appended > lastRequested && System.nanoTime() - lastRequestNanos >= asyncFlushNanos) {
                requestSync(appended, false);
                lastRequested = appended;
                lastRequestNanos = System.nanoTime();
            }
            if (high < next) {
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private void handle(WalAppend a, long s) {
        long seqId = firstSeqId + s;
        try {
            if (a.isAssigned()) {
                if (a.seqId() != seqId) {
                    throw new IllegalStateException("pre-assigned seqId " + a.seqId() + " in slot " + s);
                }
            } else {
                a.assignByConsumer(seqId);
            }
            IOException f = failure;
            if (f != null) {
                a.fail(new IOException("WAL " + name + " failed before txid " + s + " was written: "
                    + f.getMessage(), f));
                return;
            }
            if (a.durability() == Durability.SKIP_WAL) {
                a.complete();
                return;
            }
            if (a.hasRecord()) {
                a.appendTo(sink); // the cells are encoded (copied) here, before the future can complete
                appendedBytes += a.approximateBytes(); // only this thread writes it
            }
            pending.register(a);
            if (failure != null) { // a syncer failed meanwhile and drained pending before we registered
                failPending("WAL " + name + " failed, append not durable: " + failure.getMessage(), failure);
                return;
            }
            appendedTxid = s;
        } catch (Throwable e) { // even an Error: fail the futures rather than leave handlers waiting
            failAll(e);
            a.fail(new IOException("WAL " + name + " append of txid " + s + " failed: " + e, e));
        } finally {
            a.cellsDone(); // encoded, skipped or failed: the cells are not read again
        }
    }

    /** Writes everything up to {@code txid} here; a force goes to the next syncer (see the class comment). */
    private void requestSync(long txid, boolean force) {
        if (!force) {
            syncUpTo(txid, false);
            return;
        }
        syncers[nextSyncer].request(txid, force);
        nextSyncer = (nextSyncer + 1) % syncers.length;
    }

    // ---- consumer and syncer threads ----

    /** Writes (and with {@code force}, forces) everything up to at least {@code txid}, unless done. */
    void syncUpTo(long txid, boolean force) {
        try {
            synchronized (flushLock) {
                long bytes = appendedBytes; // read before the txid: a lower bound of what covered holds
                long covered = appendedTxid;
                if (pending.flushedTxid() < txid && failure == null) {
                    sink.flush();
                    syncCount.incrementAndGet();
                    pending.flushed(covered);
                }
                if (pending.flushedTxid() >= covered) {
                    flushedBytes = Math.max(flushedBytes, bytes);
                }
            }
            if (force) {
                synchronized (forceLock) {
                    if (pending.forcedTxid() < txid && failure == null) {
                        long covered = pending.flushedTxid();
                        sink.force();
                        forceCount.incrementAndGet();
                        pending.forced(covered);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            failAll(e);
        }
    }

    /** Records the first failure and fails every waiting future. */
    private void failAll(Throwable cause) {
        IOException io = cause instanceof IOException e ? e : new IOException(cause.toString(), cause);
        if (failure == null) {
            failure = io;
        }
        failPending("WAL " + name + " failed, append not durable: " + io.getMessage(), io);
    }

    private void failPending(String message, IOException cause) {
        for (WalAppend a : pending.drain()) {
            a.fail(new IOException(message + " (txid " + a.txid() + ")", cause));
        }
    }

    // ---- close and metrics ----

    /**
     * Rejects new appends, drains the ring, writes and forces everything accepted, completes every
     * future (or fails it with the WAL's failure), stops the threads and closes the sink. Idempotent.
     *
     * @throws IOException when the WAL had failed (its pending futures are failed) or the sink's close failed
     */
    @Override
    public void close() throws IOException {
        closeGate.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            closeGate.writeLock().unlock();
        }
        // every producer let in has published; the final barrier forces everything before it
        IOException result = null;
        boolean interrupted = false;
        if (consumer.isAlive()) {
            WalAppend last = WalAppend.barrier(Durability.FSYNC_WAL);
            publishOpen(last, true);
            try {
                while (!last.durable().isDone() && consumer.isAlive()) {
                    try {
                        last.durable().get(100, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException | ExecutionException e) {
                        // loop: done (normally or not) or the consumer died
                    }
                }
                if (last.durable().isDone()) {
                    last.awaitDurable();
                }
            } catch (IOException e) {
                result = e;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        stopping = true;
        LockSupport.unpark(consumer);
        try {
            consumer.join();
            for (WalSyncer s : syncers) {
                s.stop();
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        IOException closedEx = new IOException("WAL " + name + " closed before the append was durable");
        failPending(closedEx.getMessage(), failure != null ? failure : closedEx);
        try {
            sink.close();
        } catch (IOException e) {
            result = result == null ? e : result;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (result == null && failure != null) {
            result = new IOException("WAL " + name + " had failed: " + failure.getMessage(), failure);
        }
        if (result != null) {
            throw result;
        }
    }

    public String name() {
        return name;
    }

    public long firstSeqId() {
        return firstSeqId;
    }

    /**
     * One above the highest sequence id this log handed out (to appends, barriers and its close
     * barrier): the first sequence id of the next log. Exact once {@link #close} returned.
     */
    public long nextSeqId() {
        return firstSeqId + ring.claimed() + 1;
    }

    /** Filesystem flushes (writes to the channel) done so far. */
    public long syncCount() {
        return syncCount.get();
    }

    /** Forces ({@code FileChannel.force}) done so far. */
    public long forceCount() {
        return forceCount.get();
    }

    /** Highest txid written to the channel (-1 if none). */
    public long flushedTxid() {
        return pending.flushedTxid();
    }

    /** Highest txid forced to the device (-1 if none). */
    public long forcedTxid() {
        return pending.forcedTxid();
    }
}
