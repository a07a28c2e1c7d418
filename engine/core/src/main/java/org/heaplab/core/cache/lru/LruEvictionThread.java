package org.heaplab.core.cache.lru;

import java.lang.ref.WeakReference;

/**
 * The LruBlockCache's eviction thread (HBase's EvictionThread): sleeps until the cache grows past its
 * acceptable size, then runs one eviction. Readers and the thread caching a block never evict
 * themselves: they only wake this thread, so a cache miss does not pay for an eviction run.
 *
 * <p>It holds the cache weakly, so a cache that is dropped without {@link #shutdown} (tests) does not
 * keep its thread alive. Daemon thread.
 */
final class LruEvictionThread extends Thread {
    private final WeakReference<LruBlockCache> cache;
    private boolean wanted;
    private volatile boolean stopped;

    LruEvictionThread(LruBlockCache cache) {
        super("lru-block-cache-eviction");
        this.cache = new WeakReference<>(cache);
        setDaemon(true);
    }

    /** Asks for one eviction run (runs queued while one is under way collapse into one). */
    synchronized void wake() {
        wanted = true;
        notifyAll();
    }

    void shutdown() {
        stopped = true;
        interrupt();
    }

    @Override
    public void run() {
        while (!stopped) {
            synchronized (this) {
                try {
                    while (!wanted && !stopped) {
                        wait(10_000); // re-check now and then whether the cache was dropped
                        if (cache.get() == null) {
                            return;
                        }
                    }
                } catch (InterruptedException e) {
                    return;
                }
                wanted = false;
            }
            LruBlockCache c = cache.get();
            if (c == null || stopped) {
                return;
            }
            c.evict();
        }
    }
}
