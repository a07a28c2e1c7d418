package org.heaplab.core.region;

import java.io.Closeable;
import java.util.Collection;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The background flusher thread (HBase's MemStoreFlusher): flushes a region whose memstore passed
 * hbase.hregion.memstore.flush.size, and under global pressure flushes the largest memstores until
 * the total is below the lower mark.
 *
 * <p>Thread safety: {@link #requestFlush} and {@link #requestGlobalFlush} may be called from any thread
 * and only enqueue; all flushing happens on the one flusher thread (explicit flushes from admin calls
 * run on their caller's thread and are serialized with this one per region by the region's flush lock).
 */
final class MemstoreFlusher implements Closeable {
    private static final Logger LOG = Logger.getLogger(MemstoreFlusher.class.getName());

    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Object globalMarker = new Object();
    private final Object stopMarker = new Object();
    private final AtomicBoolean globalPending = new AtomicBoolean();
    private final Supplier<Collection<Region>> regions;
    private final MemstorePressure pressure;
    private final Thread thread;

    MemstoreFlusher(Supplier<Collection<Region>> regions, MemstorePressure pressure) {
        this.regions = regions;
        this.pressure = pressure;
        this.thread = new Thread(this::run, "MemStoreFlusher");
        thread.setDaemon(true);
        thread.start();
    }

    void requestFlush(Region region) {
        if (region.markFlushRequested()) {
            queue.add(region);
        }
    }

    void requestGlobalFlush() {
        if (globalPending.compareAndSet(false, true)) {
            queue.add(globalMarker);
        }
    }

    private void run() {
        while (true) {
            Object job;
            try {
                job = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (job == stopMarker) {
                return;
            }
            if (job == globalMarker) {
                globalPending.set(false);
                flushUntilBelowLowerMark();
            } else {
                flush((Region) job);
            }
        }
    }

    private void flushUntilBelowLowerMark() {
        while (pressure.aboveLowerMark()) {
            Region largest = null;
            for (Region r : regions.get()) {
                if (r.memstoreSize() > 0 && (largest == null || r.memstoreSize() > largest.memstoreSize())) {
                    largest = r;
                }
            }
            if (largest == null || !flush(largest)) {
                return;
            }
        }
    }

    private boolean flush(Region r) {
        try {
            r.flush();
            return true;
        } catch (Exception e) {
            LOG.log(Level.WARNING, "flush of region " + r.encodedName() + " failed", e);
            return false;
        }
    }

    /** Stops the thread after the flush in progress (queued requests are dropped). */
    @Override
    public void close() {
        queue.add(stopMarker);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
