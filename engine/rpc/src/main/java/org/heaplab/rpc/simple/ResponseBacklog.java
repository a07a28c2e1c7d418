package org.heaplab.rpc.simple;

import java.util.concurrent.TimeUnit;

/**
 * How many of a {@link SimpleRpcServer}'s connections hold responses their socket has not taken yet (the
 * frames waiting for the {@link Responder}), so that stopping waits until they are written, woken by the
 * last one, instead of looking at every connection again and again.
 *
 * <p>Thread safety: every method locks this object; {@link PendingResponses} reports each connection's
 * changes under its own lock, so they arrive in order.
 */
final class ResponseBacklog {
    private int connections;

    /** A connection queued its first unwritten frame. */
    synchronized void added() {
        connections++;
    }

    /** A connection's unwritten frames are all written, or dropped with the connection. */
    synchronized void cleared() {
        if (--connections == 0) {
            notifyAll();
        }
    }

    /** Waits until no connection holds unwritten frames, at most {@code timeoutNanos}; true when none does. */
    synchronized boolean awaitEmpty(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        for (long left = timeoutNanos; connections > 0 && left > 0; left = deadline - System.nanoTime()) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return connections == 0;
    }
}
