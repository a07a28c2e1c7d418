package org.heaplab.core.region;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.wal.Durability;

/**
 * One region's part of a put on the staged write path (the Alibaba slides), moved through its stages by the
 * server: {@link #preAppend} on the region's append handler, then, once {@link #readyForPostSync()}
 * completes (the WAL sync for SYNC_WAL / FSYNC_WAL, at once for ASYNC_WAL / SKIP_WAL), {@link #postSync}
 * on a post-sync thread. Made by {@link OnlineRegions#prepare}.
 *
 * <p>Cells: they may be views over the request buffer; the memstore copies them in {@link #postSync}
 * and the WAL's consumer encodes them before {@link #walDone()} completes. Keep the buffer until both.
 *
 * <p>Thread safety: each stage method is called once, in order, by one thread at a time (the stages
 * hand the object over through queues).
 */
public final class RegionPut {
    private final Region region;
    private final List<Cell> cells;
    private final Durability durability;
    private final Runnable afterApply;
    private volatile Region.PendingWrite pending;

    RegionPut(Region region, List<Cell> cells, Durability durability, Runnable afterApply) {
        this.region = region;
        this.cells = cells;
        this.durability = durability;
        this.afterApply = afterApply;
    }

    /** The region's encoded name: the staged path binds a region to one append handler by it. */
    public String regionName() {
        return region.encodedName();
    }

    /** Pre-append stage: row locks, MVCC begin, WAL append; never waits for a sync. */
    public void preAppend() throws IOException {
        pending = region.preAppend(cells, durability);
    }

    /** Completes once the WAL no longer reads the cells (its consumer encoded them). After {@link #preAppend}. */
    public CompletableFuture<?> walDone() {
        return pending.entry.append().cellsRead();
    }

    /**
     * When the post-sync stage may run: after the sync for SYNC_WAL and FSYNC_WAL (failing with the
     * sync's failure), at once for ASYNC_WAL and SKIP_WAL (answered before the sync). After {@link #preAppend}.
     */
    public CompletableFuture<?> readyForPostSync() {
        Durability d = pending.entry.append().durability();
        return d == Durability.SYNC_WAL || d == Durability.FSYNC_WAL ? pending.entry.append().durable()
            : CompletableFuture.completedFuture(null);
    }

    /**
     * Post-sync stage: memstore (unless {@code syncFailure}), unlock, MVCC complete.
     *
     * @return completes when the write is visible, or fails with the sync failure
     */
    public CompletableFuture<Void> postSync(Throwable syncFailure) {
        CompletableFuture<Void> visible = region.postSync(pending, syncFailure);
        if (syncFailure == null) {
            afterApply.run();
        }
        return visible;
    }
}
