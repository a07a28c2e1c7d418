package org.heaplab.core.region;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.StampedLock;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;

/**
 * Striped row locks of one region: a put holds the write locks of its rows' stripes while it appends
 * to the WAL and applies to the memstore; a get holds its row's read lock while it reads the memstores.
 * So a get sees all or none of a put's cells of that row, and puts to one row reach the WAL and the
 * memstore in the same order.
 *
 * <p>The stripes are {@link StampedLock}s, which have no owner thread: the staged write path takes a
 * put's locks on its append handler and releases them on a post-sync thread.
 *
 * <p>Thread safety: safe from any thread. Stripes are always locked in ascending index order, so two
 * multi-row puts cannot deadlock. Two rows may share a stripe (a little false contention). Not
 * reentrant: a thread must not lock a stripe it holds.
 */
final class RowLocks {
    private static final int STRIPES = 64;
    private final StampedLock[] stripes = new StampedLock[STRIPES];

    /** The stripes a put holds and their stamps, for {@link #unlockWrite}. */
    static final class Held {
        private final int[] idx;
        private final long[] stamps;

        private Held(int[] idx) {
            this.idx = idx;
            this.stamps = new long[idx.length];
        }
    }

    RowLocks() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new StampedLock();
        }
    }

    private static int stripe(byte[] row) {
        return Math.floorMod(Arrays.hashCode(row), STRIPES);
    }

    /** Write-locks the stripes of {@code rows}, in ascending order. */
    Held lockWrite(Collection<byte[]> rows) {
        int[] idx = new int[rows.size()];
        int i = 0;
        for (byte[] row : rows) {
            idx[i++] = stripe(row);
        }
        return lock(idx);
    }

    /**
     * Write-locks the stripes of the rows of {@code cells}, in ascending order: the put path's form,
     * hashing each row where it lies (no row copies, no collections: a put's lock costs three arrays).
     */
    Held lockWriteRowsOf(List<? extends Cell> cells) {
        int[] idx = new int[cells.size()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = Math.floorMod(CellComparator.rowHashCode(cells.get(i)), STRIPES);
        }
        return lock(idx);
    }

    /** Sorts and de-duplicates {@code idx} in place, then locks those stripes in ascending order. */
    private Held lock(int[] idx) {
        Arrays.sort(idx);
        int n = 0;
        for (int i = 0; i < idx.length; i++) {
            if (n == 0 || idx[i] != idx[n - 1]) {
                idx[n++] = idx[i];
            }
        }
        Held h = new Held(n == idx.length ? idx : Arrays.copyOf(idx, n));
        for (int i = 0; i < h.idx.length; i++) {
            h.stamps[i] = stripes[h.idx[i]].writeLock();
        }
        return h;
    }

    /** Releases what {@link #lockWrite} took; any thread may call it, once. */
    void unlockWrite(Held h) {
        for (int i = h.idx.length - 1; i >= 0; i--) {
            stripes[h.idx[i]].unlockWrite(h.stamps[i]);
        }
    }

    /** The write lock of {@code row}'s stripe as a {@link Lock} with no owner thread (not reentrant). */
    Lock writeLock(byte[] row) {
        return stripes[stripe(row)].asWriteLock();
    }

    Lock readLock(byte[] row) {
        return stripes[stripe(row)].asReadLock();
    }
}
