package org.heaplab.server;

import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.Put;
import org.heaplab.core.region.RegionPut;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;

/**
 * The Alibaba slides' staged write path (heaplab.regionserver.write.path=staged): the put is split into three
 * stages with bounded queues between them, and no thread waits for a WAL sync.
 *
 * <pre>
 *   RPC handler: validate, split by region ──▶ [append handler h = hash(region) % handlers]
 *   append handler (pre-append): row locks, MVCC begin = WAL append; returns to its queue at once
 *   sync stage: the WAL's consumer and syncer threads; a completed sync (SYNC/FSYNC), or the append
 *               itself (ASYNC/SKIP: answered before the sync), hands the write on ──▶ [post-sync queue]
 *   post-sync thread: memstore, unlock, MVCC complete; when the write is visible the response is sent
 *               from there (not from a handler)
 * </pre>
 *
 * <p>A region is bound to one append handler, so its writes are appended in arrival order by one
 * thread (no contention among handlers on its row locks and MVCC queue). A batch spanning regions is
 * answered once every region's part finished (the first failure, if any, is the answer). The request
 * buffer is held until the response is sent and the WAL has encoded every part's cells.
 *
 * <p>Keys: heaplab.regionserver.write.staged.handlers (append handlers, default
 * hbase.regionserver.handler.count), heaplab.regionserver.write.staged.postsync.threads (2),
 * heaplab.regionserver.write.staged.queue.length (1000 per queue; a full queue blocks the stage that
 * feeds it: the RPC handlers, or the WAL's syncer threads).
 *
 * <p>Thread safety: {@link #put} from every RPC handler at once; each {@link RegionPut} is handed from
 * stage to stage through the queues.
 */
final class StagedWritePath implements WritePath {
    static final String HANDLERS_KEY = "heaplab.regionserver.write.staged.handlers";
    static final String POSTSYNC_THREADS_KEY = "heaplab.regionserver.write.staged.postsync.threads";
    static final int DEFAULT_POSTSYNC_THREADS = 2;
    static final String QUEUE_LENGTH_KEY = "heaplab.regionserver.write.staged.queue.length";
    static final int DEFAULT_QUEUE_LENGTH = 1000;

    private final OnlineRegions regions;
    private final WriteStage[] appendHandlers;
    private final WriteStage postSync;

    StagedWritePath(OnlineRegions regions, int handlers, int postSyncThreads, int queueLength) {
        if (handlers < 1 || postSyncThreads < 1 || queueLength < 1) {
            throw new ConfigurationException(HANDLERS_KEY + ", " + POSTSYNC_THREADS_KEY + " and "
                + QUEUE_LENGTH_KEY + " must be >= 1, got " + handlers + ", " + postSyncThreads + ", " + queueLength);
        }
        this.regions = regions;
        this.appendHandlers = new WriteStage[handlers];
        for (int i = 0; i < handlers; i++) {
            appendHandlers[i] = new WriteStage("WritePath.append-" + i, 1, queueLength);
        }
        this.postSync = new WriteStage("WritePath.postsync", postSyncThreads, queueLength);
    }

    static StagedWritePath fromConf(Configuration conf, OnlineRegions regions, int rpcHandlers) {
        return new StagedWritePath(regions, conf.getInt(HANDLERS_KEY, rpcHandlers),
            conf.getInt(POSTSYNC_THREADS_KEY, DEFAULT_POSTSYNC_THREADS), conf.getInt(QUEUE_LENGTH_KEY, DEFAULT_QUEUE_LENGTH));
    }

    @Override
    public void put(String table, List<Put> puts, Durability durability, ServerCall call) {
        List<RegionPut> parts;
        try {
            parts = regions.prepareBatch(table, puts, durability);
        } catch (Throwable t) {
            call.fail(DiskFull.note(t));
            return;
        }
        if (parts.isEmpty()) {
            call.reply(RpcService.Reply.EMPTY);
            return;
        }
        Answer answer = new Answer(call, parts.size());
        for (RegionPut p : parts) {
            WriteStage handler = appendHandlers[Math.floorMod(p.regionName().hashCode(), appendHandlers.length)];
            try {
                handler.submit(() -> preAppend(p, answer));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answer.partDone(new InterruptedIOException("interrupted while queueing the put"));
            }
        }
    }

    /** Pre-append stage, on the region's append handler. */
    private void preAppend(RegionPut p, Answer answer) {
        try {
            p.preAppend();
        } catch (Throwable t) {
            answer.partDone(t);
            return;
        }
        answer.call.holdRequestUntil(p.walDone()); // the WAL's consumer reads the cells until then
        // the sync stage hands over: on the WAL's consumer for SYNC, a syncer for FSYNC, here for ASYNC/SKIP
        p.readyForPostSync().whenComplete((v, syncFailure) -> toPostSync(p, unwrap(syncFailure), answer));
    }

    private void toPostSync(RegionPut p, Throwable syncFailure, Answer answer) {
        try {
            postSync.submit(() -> postSync(p, syncFailure, answer));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            postSync(p, syncFailure, answer); // never drop a write that holds locks
        }
    }

    /** Post-sync stage: memstore, unlock, MVCC complete; the answer goes out when the write is visible. */
    private void postSync(RegionPut p, Throwable syncFailure, Answer answer) {
        try {
            p.postSync(syncFailure);
        } catch (Throwable t) {
            answer.partDone(t);
            return;
        }
        if (syncFailure != null) {
            answer.partDone(syncFailure);
            return;
        }
        p.whenVisible().whenComplete((v, t) -> answer.partDone(unwrap(t)));
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** The call's one answer, sent when the last region part finished: OK, or the first failure. */
    private static final class Answer {
        final ServerCall call;
        private final AtomicInteger remaining;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Answer(ServerCall call, int parts) {
            this.call = call;
            this.remaining = new AtomicInteger(parts);
        }

        void partDone(Throwable t) {
            if (t != null) {
                failure.compareAndSet(null, t);
            }
            if (remaining.decrementAndGet() == 0) {
                Throwable f = failure.get();
                if (f == null) {
                    call.reply(RpcService.Reply.EMPTY);
                } else {
                    call.fail(DiskFull.note(f));
                }
            }
        }
    }

    @Override
    public String describe() {
        return "staged (" + KEY + "=staged: " + appendHandlers.length + " append handlers, regions bound by hash, "
            + "post-sync stage answers; queues of " + QUEUE_LENGTH_KEY + ")";
    }

    /** Stops the stages in order (the RPC server stopped first, so no new puts arrive). */
    @Override
    public void close() {
        for (WriteStage h : appendHandlers) {
            h.close();
        }
        postSync.close();
    }
}
