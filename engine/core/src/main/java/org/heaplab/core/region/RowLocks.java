package org.heaplab.core.region;

import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Striped row locks of one region: a put holds the write locks of its rows' stripes while it appends
 * to the WAL and applies to the memstore; a get holds its row's read lock while it reads the memstores.
 * So a get sees all or none of a put's cells of that row, and puts to one row reach the WAL and the
 * memstore in the same order.
 *
 * <p>Thread safety: safe from any thread. Stripes are always locked in ascending index order, so two
 * multi-row puts cannot deadlock. Two rows may share a stripe (a little false contention).
 */
final class RowLocks {
    private static final int STRIPES = 64;
    private final ReentrantReadWriteLock[] stripes = new ReentrantReadWriteLock[STRIPES];

    RowLocks() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantReadWriteLock();
        }
    }

    private static int stripe(byte[] row) {
        return Math.floorMod(Arrays.hashCode(row), STRIPES);
    }

    /** Write-locks the stripes of {@code rows}; returns the locked stripe indices for {@link #unlockWrite}. */
    int[] lockWrite(Collection<byte[]> rows) {
        int[] idx = rows.stream().mapToInt(RowLocks::stripe).distinct().sorted().toArray();
        for (int i : idx) {
            stripes[i].writeLock().lock();
        }
        return idx;
    }

    void unlockWrite(int[] idx) {
        for (int i = idx.length - 1; i >= 0; i--) {
            stripes[idx[i]].writeLock().unlock();
        }
    }

    ReentrantReadWriteLock.ReadLock readLock(byte[] row) {
        return stripes[stripe(row)].readLock();
    }
}
