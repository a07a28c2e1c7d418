package org.heaplab.server;

import java.util.concurrent.CountDownLatch;

/**
 * A server process's stop, run once. The region server and the master stop the same way: the first caller
 * runs the stop and returns when it is done; a later caller (a second {@code stop()}, or the shutdown hook
 * after a test has stopped the server) returns at once; {@link #await()} blocks the main thread until the
 * first stop has finished, so {@code main} ends only then.
 *
 * <p>Thread safety: {@link #run} and {@link #await} may be called from any thread; the claim to stop is
 * taken under this object's lock, the stop itself runs outside it.
 */
public final class StopOnce {
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean stopping; // guarded by this

    /** Runs {@code stop} unless a stop has already begun; counts the stop as finished even when it throws. */
    public void run(Runnable stop) {
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
        }
        try {
            stop.run();
        } finally {
            stopped.countDown();
        }
    }

    /** Returns once the first stop has finished. */
    public void await() throws InterruptedException {
        stopped.await();
    }
}
