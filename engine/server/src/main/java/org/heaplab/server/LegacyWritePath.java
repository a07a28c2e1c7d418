package org.heaplab.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.Put;
import org.heaplab.core.region.RegionPut;
import org.heaplab.core.util.Futures;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;

/**
 * The write path of HBase 1.x and 2.x alike (heaplab.regionserver.write.path=legacy): the RPC handler runs
 * every stage of each region's part of the put itself, in order, and waits where {@link StagedWritePath}
 * hands the part to another thread.
 *
 * <pre>
 *   RPC handler: validate, split by region, then for each region's part:
 *     pre-append: row locks, MVCC begin = WAL append
 *     sync:       waits for the WAL's syncer (SYNC/FSYNC; ASYNC/SKIP do not wait)
 *     post-sync:  memstore, unlock, MVCC complete
 *     visible:    waits until the read point reaches the write
 *   and answers from the handler
 * </pre>
 *
 * <p>The request buffer is held until the WAL has encoded every part's cells, which for ASYNC_WAL and
 * SKIP_WAL can be after the answer.
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
        List<RegionPut> parts;
        try {
            parts = regions.prepareBatch(table, puts, durability);
        } catch (Throwable t) {
            call.fail(DiskFull.note(t));
            return;
        }
        List<CompletableFuture<Void>> walDone = new ArrayList<>(parts.size());
        try {
            for (RegionPut p : parts) {
                p.preAppend();
                walDone.add(p.walDone()); // the WAL's consumer reads the cells until then
                Throwable syncFailure = p.awaitSync(); // this handler is blocked for the whole sync
                p.postSync(syncFailure);
                if (syncFailure != null) {
                    throw syncFailure;
                }
                p.awaitVisible(); // and until the write is visible
            }
        } catch (Throwable t) {
            call.holdRequestUntil(Futures.allSettled(walDone)); // parts appended may still read the cells
            call.fail(DiskFull.note(t));
            return;
        }
        call.holdRequestUntil(walDone.size() == 1 ? walDone.get(0) : Futures.allSettled(walDone));
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
