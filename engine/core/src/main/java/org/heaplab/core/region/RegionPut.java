package org.heaplab.core.region;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.wal.WALEdit;
import org.heaplab.core.wal.WriteEntry;

/**
 * One region's part of a put, moved through the write's three stages (HBase 2.x's order, see
 * {@link Region}): {@link #preAppend} (row locks, MVCC begin = WAL append), the WAL sync, {@link #postSync}
 * (memstore, unlock, MVCC complete). Both write paths run exactly these stages and differ only in
 * which threads run them and who waits:
 *
 * <pre>
 *   legacy  (the server's LegacyWritePath; {@link #writeOnCallingThread} for in-process callers): one
 *           thread runs every stage and blocks on the sync and on the read point ({@link #awaitSync},
 *           {@link #awaitVisible})
 *   staged  (the Alibaba slides; the server's StagedWritePath): an append handler runs preAppend, the WAL's
 *           threads complete {@link #readyForPostSync}, a post-sync thread runs postSync and answers on
 *           {@link #whenVisible}; nobody blocks
 * </pre>
 *
 * <p>Made by {@link OnlineRegions#prepare}.
 *
 * <p>Cells: the puts' cells may be views over the request buffer; the memstore copies them in {@link #postSync}
 * and the WAL's consumer encodes them before {@link #walDone()} completes. Keep the buffer until both.
 *
 * <p>Thread safety: each stage method is called once, in order, by one thread at a time (the staged
 * path hands the object over through queues).
 */
public final class RegionPut {
    private final Region region;
    /** The puts of this region, as decoded (their family maps stamped); {@link #cellCount} cells in all. */
    final List<Put> puts;
    final int cellCount;
    final Durability durability;
    private final Consumer<Region> afterApply;
    // What the pre-append stage holds until the post-sync stage releases it (set by Region.preAppend; no
    // object of its own, as this one lives exactly as long). entry is volatile and written last: it
    // publishes the other two to the thread of the next stage.
    private long updatesStamp;
    private RowLocks.Held rows;
    private WALEdit edit;
    private volatile WriteEntry entry;

    RegionPut(Region region, List<Put> puts, Durability durability, Consumer<Region> afterApply) {
        this.region = region;
        this.puts = puts;
        int n = 0;
        for (int i = 0; i < puts.size(); i++) {
            n += puts.get(i).size();
        }
        this.cellCount = n;
        this.durability = durability;
        this.afterApply = afterApply;
    }

    /** The region's encoded name: the staged path binds a region to one append handler by it. */
    public String regionName() {
        return region.encodedName();
    }

    /**
     * The legacy write path's stages for in-process callers ({@link OnlineRegions#put}; the server's
     * LegacyWritePath runs the same sequence itself): every stage on the calling thread, which waits for
     * the sync and then until the write is visible.
     *
     * @return {@link #walDone()}: completes once the WAL no longer reads the cells (after this returns
     *     for ASYNC_WAL)
     * @throws IOException the sync's failure (the memstore is untouched then) or an interrupt; the cells
     *     may still be read until the attached {@link CellsStillInUse} completes
     */
    public CompletableFuture<Void> writeOnCallingThread() throws IOException {
        preAppend();
        Throwable syncFailure = awaitSync();
        postSync(syncFailure);
        try {
            if (syncFailure != null) {
                throw syncFailure instanceof IOException io ? io : new IOException(syncFailure);
            }
            awaitVisible();
        } catch (IOException e) {
            e.addSuppressed(new CellsStillInUse(walDone()));
            throw e;
        }
        return walDone();
    }

    /** Pre-append stage: row locks, MVCC begin, WAL append; never waits for a sync. */
    public void preAppend() throws IOException {
        region.preAppend(this);
    }

    /** Completes once the WAL no longer reads the cells (its consumer encoded them). After {@link #preAppend}. */
    public CompletableFuture<Void> walDone() {
        return entry.append().cellsRead();
    }

    /**
     * When the post-sync stage may run: after the sync for SYNC_WAL and FSYNC_WAL (failing with the
     * sync's failure), at once for ASYNC_WAL and SKIP_WAL (answered before the sync). After {@link #preAppend}.
     */
    public CompletableFuture<?> readyForPostSync() {
        return waitsForSync() ? entry.append().durable() : CompletableFuture.completedFuture(null);
    }

    /**
     * {@link #readyForPostSync}, blocking the calling thread.
     *
     * @return the sync's failure (an interrupt counts as one), or null; pass it to {@link #postSync}
     */
    public Throwable awaitSync() {
        if (!waitsForSync()) {
            return null;
        }
        try {
            entry.append().awaitDurable();
            return null;
        } catch (IOException e) {
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new InterruptedIOException("interrupted while waiting for the WAL sync");
        }
    }

    private boolean waitsForSync() {
        Durability d = entry.append().durability();
        return d == Durability.SYNC_WAL || d == Durability.FSYNC_WAL;
    }

    /** Post-sync stage: memstore (unless {@code syncFailure}), unlock, MVCC complete; queues a flush if due. */
    public void postSync(Throwable syncFailure) {
        region.postSync(this, syncFailure);
        if (syncFailure == null) {
            afterApply.accept(region);
        }
    }

    /** Blocks until the write is visible (the read point reached it). After {@link #postSync}. */
    public void awaitVisible() throws InterruptedIOException {
        region.awaitVisible(this);
    }

    /** Completes once the write is visible; nobody blocks. After {@link #postSync}. */
    public CompletableFuture<Void> whenVisible() {
        return region.whenVisible(this);
    }

    /** Region.preAppend: the locks this write holds, its WALEdit (the cells the memstore gets) and its begun MVCC write. */
    void held(long updatesStamp, RowLocks.Held rows, WALEdit edit, WriteEntry entry) {
        this.updatesStamp = updatesStamp;
        this.rows = rows;
        this.edit = edit;
        this.entry = entry;
    }

    WALEdit edit() {
        return edit;
    }

    long updatesStamp() {
        return updatesStamp;
    }

    RowLocks.Held rows() {
        return rows;
    }

    WriteEntry entry() {
        return entry;
    }
}
