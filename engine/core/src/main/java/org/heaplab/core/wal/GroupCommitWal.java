package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * {@link WalSink#append}; {@link SinkSync} serializes the writes and the forces of the file.
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
    private final String name;
    private final WalSink sink;
    private final long firstSeqId;
    private final long asyncFlushNanos;
    private final WalRingBuffer<WalAppend> ring;
    private final WalSyncer[] syncers;
    private final Thread consumer;
    private final ReentrantReadWriteLock closeGate = new ReentrantReadWriteLock();
    private final PendingSyncs pending = new PendingSyncs();
    private final SinkSync sinkSync;
    private volatile long appendedTxid = -1;
    /** Bytes of records appended to the sink (approximate; consumer writes, syncers read). */
    private volatile long appendedBytes;
    private final long batchBytes;
    private final long maxBufferedBytes;
    private volatile boolean closed;
    private volatile boolean stopping;
    private int nextSyncer;

    /**
     * Starts the consumer and syncer threads over {@code sink}.
     *
     * @param firstSeqId the sequence id of the first append (above every id already used)
     */
    public GroupCommitWal(String name, WalSink sink, long firstSeqId, WalTuning tuning) {
        if (firstSeqId < 0) {
            throw new IllegalArgumentException("firstSeqId must be >= 0, got " + firstSeqId);
        }
        this.name = name;
        this.sink = sink;
        this.firstSeqId = firstSeqId;
        this.asyncFlushNanos = TimeUnit.MILLISECONDS.toNanos(tuning.asyncFlushMs());
        this.batchBytes = tuning.batchBytes();
        this.maxBufferedBytes = tuning.maxBufferedBytes();
        this.sinkSync = new SinkSync(sink, pending, () -> appendedTxid, () -> appendedBytes);
        this.ring = new WalRingBuffer<>(tuning.ringSize());
        this.syncers = new WalSyncer[tuning.syncerCount()];
        for (int i = 0; i < syncers.length; i++) {
            syncers[i] = new WalSyncer(this, name + "-syncer-" + i);
            syncers[i].start();
        }
        this.consumer = new Thread(this::runConsumer, name + "-consumer");
        consumer.setDaemon(true);
        ring.setConsumer(consumer);
        consumer.start();
    }

    /**
     * Creates the WAL file {@code file} (see {@link ChannelWalSink}) with the sizes from {@code conf}.
     *
     * @throws org.heaplab.core.conf.ConfigurationException naming the key of a value out of range
     */
    public static GroupCommitWal create(Path file, long firstSeqId, Configuration conf) throws IOException {
        WalTuning tuning = WalTuning.fromConf(conf); // before the file exists: a bad value leaves nothing behind
        ChannelWalSink sink = ChannelWalSink.create(file);
        try {
            return new GroupCommitWal(file.getFileName().toString(), sink, firstSeqId, tuning);
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
    public WalAppend append(WALKey key, WALEdit edit, Durability durability) throws IOException {
        return publish(new WalAppend(key, edit, durability, null, true), true);
    }

    /** {@link #append(WALKey, WALEdit, Durability)} of {@code cells} (tools and tests). */
    public WalAppend append(String table, String region, List<? extends Cell> cells, Durability durability)
        throws IOException {
        return append(new WALKey(table, region), WALEdit.of(cells), durability);
    }

    /**
     * Appends one region's batch whose sequence id the consumer thread assigns when it reaches the slot;
     * {@code onAssigned} runs on the consumer thread, in sequence order, before the handler's
     * {@link WalAppend#awaitSeqId} returns (the 1.x shape {@link LegacyMvcc} models).
     */
    public WalAppend appendUnassigned(WALKey key, WALEdit edit, Durability durability, LongConsumer onAssigned)
        throws IOException {
        return publish(new WalAppend(key, edit, durability, onAssigned, false), false);
    }

    /** {@link #appendUnassigned(WALKey, WALEdit, Durability, LongConsumer)} of {@code cells} (tools and tests). */
    public WalAppend appendUnassigned(String table, String region, List<? extends Cell> cells, Durability durability,
        LongConsumer onAssigned) throws IOException {
        return appendUnassigned(new WALKey(table, region), WALEdit.of(cells), durability, onAssigned);
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
            IOException f = pending.failure();
            if (f != null) { // refused, not failed later: nothing is appended after a failure
                throw new IOException("WAL " + name + " failed: " + f.getMessage(), f);
            }
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

    // ---- consumer thread ----

    private void runConsumer() {
        try {
            consume();
        } catch (Throwable t) { // a bug: fail what waits, make close and later appends fail fast
            pending.failAll(name, t);
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
                    if (appendedBytes - sinkSync.flushedBytes() >= maxBufferedBytes) {
                        // checked per append (a full ring of big records is far more than the bound):
                        // the file fell behind, so flush here; producers wait on the ring meanwhile
                        syncUpTo(appendedTxid, false);
                    }
                }
                ring.release(high);
                next = high + 1;
                if (!sync && appendedBytes - sinkSync.flushedBytes() >= batchBytes) {
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
            IOException f = pending.failure();
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
            f = pending.failure();
            if (f != null) { // a syncer failed meanwhile and drained pending before we registered
                pending.failWaiting("WAL " + name + " failed, append not durable: " + f.getMessage(), f);
                return;
            }
            appendedTxid = s;
        } catch (Throwable e) { // even an Error: fail the futures rather than leave handlers waiting
            pending.failAll(name, e);
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
            sinkSync.flushUpTo(txid);
            if (force) {
                sinkSync.forceUpTo(txid);
            }
        } catch (IOException | RuntimeException e) {
            pending.failAll(name, e);
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
                last.awaitDurableWhileAlive(consumer);
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
        IOException failure = pending.failure();
        pending.failWaiting(closedEx.getMessage(), failure != null ? failure : closedEx);
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

    /** Completes with this file's first I/O failure, once every append waiting then has failed. */
    public CompletableFuture<IOException> failure() {
        return pending.failed();
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
        return sinkSync.syncCount();
    }

    /** Forces ({@code FileChannel.force}) done so far. */
    public long forceCount() {
        return sinkSync.forceCount();
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
