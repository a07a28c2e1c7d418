package org.heaplab.core.region;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;

/**
 * Global memstore accounting of a region server and the writers' brake (HBase's
 * hbase.regionserver.global.memstore.size): a writer that finds all memstores together at or above
 * the limit asks for flushes and waits until flushes bring the total under the lower mark
 * (0.95 x limit). Waiting happens before the writer takes any lock and before its batch is written,
 * so a blocked writer holds nothing and loses nothing.
 *
 * <p>Thread safety: safe from any thread. The total is an AtomicLong; waiting and waking use one lock
 * and condition. A waiter re-asks for flushes every second in case a flush failed.
 */
public final class MemstorePressure {
    private final long limit;
    private final long lowerMark;
    private final Runnable requestFlush;
    private final AtomicLong size = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition belowLowerMark = lock.newCondition();
    private int blocked;
    private boolean closed;

    /**
     * The global limit {@code conf} sets: the absolute heaplab.regionserver.global.memstore.bytes when
     * given, else hbase.regionserver.global.memstore.size (a fraction of the heap, at most 0.8).
     *
     * @throws ConfigurationException naming the key for a fraction outside (0, 0.8]
     */
    static long globalLimit(Configuration conf) {
        long bytes = conf.getLong(StorageKeys.GLOBAL_MEMSTORE_BYTES, -1);
        if (bytes >= 0) {
            return bytes;
        }
        float f = conf.getFloat(StorageKeys.GLOBAL_MEMSTORE_SIZE, StorageKeys.DEFAULT_GLOBAL_MEMSTORE_SIZE);
        if (f <= 0 || f > 0.8f) {
            throw new ConfigurationException(StorageKeys.GLOBAL_MEMSTORE_SIZE + " must be in (0, 0.8], got " + f);
        }
        return (long) (f * (double) Runtime.getRuntime().maxMemory());
    }

    /**
     * @param limitBytes   the global limit
     * @param requestFlush called (from the writer's thread) when a writer blocks: must only enqueue work
     */
    public MemstorePressure(long limitBytes, Runnable requestFlush) {
        this.limit = limitBytes;
        this.lowerMark = Math.round(limitBytes * StorageKeys.GLOBAL_MEMSTORE_LOWER_MARK);
        this.requestFlush = requestFlush;
    }

    /** Blocks while the total is at or above the limit, until it drops under the lower mark. */
    public void awaitBelowLimit() throws IOException {
        if (size.get() < limit) {
            return;
        }
        lock.lock();
        try {
            blocked++;
            try {
                while (size.get() >= lowerMark && !closed) {
                    requestFlush.run();
                    belowLowerMark.await(1, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for memstore flushes");
            } finally {
                blocked--;
            }
            if (closed) {
                throw new IOException("region server is closing");
            }
        } finally {
            lock.unlock();
        }
    }

    /** Counts bytes added to (positive) or replaced in (negative) a memstore. */
    public void add(long delta) {
        size.addAndGet(delta);
    }

    /** Counts bytes that left the memstores (a flushed snapshot, a dropped region) and wakes writers. */
    public void release(long bytes) {
        long now = size.addAndGet(-bytes);
        if (now < lowerMark) {
            lock.lock();
            try {
                belowLowerMark.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Wakes every waiting writer with an error (the server is closing). */
    public void close() {
        lock.lock();
        try {
            closed = true;
            belowLowerMark.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public long size() {
        return size.get();
    }

    public long limit() {
        return limit;
    }

    public boolean aboveLowerMark() {
        return size.get() >= lowerMark;
    }

    /** Writers waiting right now. */
    public int blockedWriters() {
        lock.lock();
        try {
            return blocked;
        } finally {
            lock.unlock();
        }
    }
}
