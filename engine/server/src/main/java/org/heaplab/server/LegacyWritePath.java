package org.heaplab.server;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.heaplab.core.region.CellsStillInUse;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.Put;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;

/**
 * The write path of HBase 1.x and 2.x alike: the handler thread runs every stage of the put itself (the
 * stages {@link StagedWritePath} spreads over its threads: pre-append = row locks, MVCC begin, WAL append;
 * the sync; post-sync = memstore, unlock, MVCC complete; see {@link org.heaplab.core.region.RegionPut}) and
 * answers; it is blocked for the whole WAL sync and until the write is visible. The request buffer is kept until the WAL has encoded the cells, which for
 * ASYNC_WAL and SKIP_WAL can be after the answer.
 *
 * <p>Thread safety: stateless; {@link OnlineRegions} is thread safe.
 */
final class LegacyWritePath implements WritePath {
    private final OnlineRegions regions;

    LegacyWritePath(OnlineRegions regions) {
        this.regions = regions;
    }

    @Override
    public void put(String table, List<Put> puts, Durability durability, ServerCall call) {
        CompletableFuture<Void> walDone;
        try {
            walDone = regions.batchMutate(table, puts, durability);
        } catch (Throwable t) {
            call.holdRequestUntil(CellsStillInUse.of(t));
            call.fail(DiskFull.note(t));
            return;
        }
        call.holdRequestUntil(walDone);
        call.reply(RpcService.Reply.EMPTY);
    }

    @Override
    public String describe() {
        return "legacy (" + KEY + "=legacy: the handler writes the put and waits for the WAL sync)";
    }

    @Override
    public void close() {
        // no threads of its own
    }
}
