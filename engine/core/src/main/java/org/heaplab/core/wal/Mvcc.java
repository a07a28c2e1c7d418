package org.heaplab.core.wal;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.conf.Configuration;

/**
 * Multi-version concurrency control for one region's writes, tied to the WAL: a write begins with its
 * WAL append (which gives it its sequence id), and the read point moves past it only when it and every
 * earlier write of the region completed. Two implementations, the two orders HBase has had:
 * {@link LegacyMvcc} (the consumer thread assigns the sequence id; the handler waits for it) and
 * {@link PreassignedMvcc} (hbase.hregion.mvcc.preassign: the handler claims it with its ring slot).
 *
 * <p>Usage (write path): {@code e = begin(...)}; wait on {@code e.append().durable()} as the durability
 * asks; apply the cells to the memstore stamped with {@code e.seqId()}; {@link #complete} (in a finally:
 * every begun entry must be completed, even when the append failed, or the read point stops for good);
 * then wait until the write is visible: {@link #awaitVisible} blocks the thread (the legacy write path),
 * {@link #whenVisible} returns a future (the staged write path answers from it).
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
    WriteEntry begin(GroupCommitWal wal, WALKey key, WALEdit edit, Durability durability)
        throws IOException, InterruptedException;

    /** {@link #begin(GroupCommitWal, WALKey, WALEdit, Durability)} of {@code cells} (tools and tests). */
    default WriteEntry begin(GroupCommitWal wal, String table, String region, List<? extends Cell> cells,
        Durability durability) throws IOException, InterruptedException {
        return begin(wal, new WALKey(table, region), WALEdit.of(cells), durability);
    }

    /** Marks the write complete; the read point advances over every completed write before it. */
    void complete(WriteEntry e);

    /** Waits until the read point reaches {@code e} (it and every earlier write of the region are visible). */
    void awaitVisible(WriteEntry e) throws InterruptedException;

    /**
     * Completes once the read point reaches {@code e}: at once when it has, else on the thread whose
     * {@link #complete} moves it there. Nobody blocks.
     */
    CompletableFuture<Void> whenVisible(WriteEntry e);

    /** {@link #complete}, then {@link #awaitVisible}. */
    default void completeAndWait(WriteEntry e) throws InterruptedException {
        complete(e);
        awaitVisible(e);
    }

    /** Highest sequence id such that it and every earlier write of this region are complete. */
    long readPoint();

    /**
     * The implementation {@code conf}'s hbase.hregion.mvcc.preassign selects, as a constructor taking the
     * initial read point: the server chooses it once at start-up and makes every region's MVCC with it.
     */
    static LongFunction<Mvcc> chosenBy(Configuration conf) {
        return conf.getBoolean(PREASSIGN, DEFAULT_PREASSIGN) ? PreassignedMvcc::new : LegacyMvcc::new;
    }

    /** One line for the start-up log: the class {@link #chosenBy} selects and why. */
    static String describe(Configuration conf) {
        boolean preassign = conf.getBoolean(PREASSIGN, DEFAULT_PREASSIGN);
        return (preassign ? PreassignedMvcc.class : LegacyMvcc.class).getSimpleName() + " (" + PREASSIGN + "="
            + preassign + ")";
    }

    /** {@link #chosenBy}, applied once. */
    static Mvcc create(Configuration conf, long initialReadPoint) {
        return chosenBy(conf).apply(initialReadPoint);
    }
}
