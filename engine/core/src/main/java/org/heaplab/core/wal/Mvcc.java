package org.heaplab.core.wal;

import java.io.IOException;
import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * Multi-version concurrency control for one region's writes, tied to the WAL: a write begins with its
 * WAL append (which gives it its sequence id), and the read point moves past it only when it and every
 * earlier write of the region completed. Two implementations, the two orders HBase has had:
 * {@link LegacyMvcc} (the consumer thread assigns the sequence id; the handler waits for it) and
 * {@link PreassignedMvcc} (hbase.hregion.mvcc.preassign: the handler claims it with its ring slot).
 *
 * <p>Usage (write path): {@code e = begin(...)}; apply the cells to the memstore stamped with
 * {@code e.seqId()}; wait on {@code e.append().durable()} as the durability asks; then
 * {@link #completeAndWait} (in a finally: every begun entry must be completed, even when the append
 * failed, or the read point stops for good).
 *
 * <p>Invariants (both implementations): sequence order equals WAL order equals begin order within the
 * region; {@link #readPoint} only grows and never reaches an incomplete write's sequence id.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public interface Mvcc {
    /** hbase.hregion.mvcc.preassign: choose {@link PreassignedMvcc} (true, the default) or {@link LegacyMvcc}. */
    String PREASSIGN = "hbase.hregion.mvcc.preassign";
    boolean DEFAULT_PREASSIGN = true;

    /**
     * Begins a write of one region's batch: appends it to {@code wal} and queues it.
     *
     * @throws IOException when the WAL rejects the append (closed or failed); nothing is queued then
     */
    WriteEntry begin(GroupCommitWal wal, String table, String region, List<? extends Cell> cells, Durability durability)
        throws IOException, InterruptedException;

    /** Marks the write complete; the read point advances over every completed write before it. */
    void complete(WriteEntry e);

    /** {@link #complete}, then waits until the read point reaches the write (it is visible). */
    void completeAndWait(WriteEntry e) throws InterruptedException;

    /**
     * {@link #complete}, without waiting: the future completes once the write is visible (the read point
     * reached it). The staged write path answers from it instead of blocking a thread.
     */
    java.util.concurrent.CompletableFuture<Void> completeAsync(WriteEntry e);

    /** Highest sequence id such that it and every earlier write of this region are complete. */
    long readPoint();

    /** The implementation {@code conf}'s hbase.hregion.mvcc.preassign selects. */
    static Mvcc create(org.heaplab.core.conf.Configuration conf, long initialReadPoint) {
        return conf.getBoolean(PREASSIGN, DEFAULT_PREASSIGN)
            ? new PreassignedMvcc(initialReadPoint) : new LegacyMvcc(initialReadPoint);
    }
}
