package org.heaplab.rpc.simple;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import org.heaplab.rpc.buffers.ResponseFrame;

/**
 * The write side of one {@link SimpleConnection}: a frame is written at once when nothing is pending and
 * the socket takes it all; whatever the socket does not take waits here, in order, for the
 * {@link Responder}. Every frame is released once written, or when the connection closes. The server's
 * {@link ResponseBacklog} hears when frames start waiting here and when none waits any more.
 *
 * <p>Thread safety: every method locks this object; any handler, the reader and the Responder call them.
 */
final class PendingResponses {
    /** What {@link #send} did with a frame. */
    enum Sent {
        /** Written whole (and released), or dropped because the connection is closed. */
        DONE,
        /** Queued behind earlier frames, which the Responder already watches. */
        QUEUED,
        /** The first frame the socket did not take: the Responder must watch the connection. */
        WATCH,
        /** The write failed: the connection must close. */
        FAILED
    }

    private final SocketChannel channel;
    private final ResponseBacklog backlog;
    private final ArrayDeque<ResponseFrame> pending = new ArrayDeque<>();
    private long pendingSinceNanos;
    private boolean shutdownOutputWhenFlushed;
    private volatile boolean closed;

    PendingResponses(SocketChannel channel, ResponseBacklog backlog) {
        this.channel = channel;
        this.backlog = backlog;
    }

    synchronized Sent send(ResponseFrame frame) {
        if (closed) {
            frame.release();
            return Sent.DONE;
        }
        if (!pending.isEmpty()) {
            pending.add(frame); // behind earlier frames: the Responder writes them in order
            return Sent.QUEUED;
        }
        try {
            if (ChannelChunks.writeSome(channel, frame)) {
                frame.release();
                return Sent.DONE;
            }
            pending.add(frame);
            pendingSinceNanos = System.nanoTime();
            backlog.added();
            return Sent.WATCH;
        } catch (IOException e) {
            frame.release();
            return Sent.FAILED;
        }
    }

    /** Writes pending frames in order; true when none is left. Throws when the socket fails. */
    synchronized boolean flush() throws IOException {
        boolean waited = !pending.isEmpty();
        try {
            while (!pending.isEmpty()) {
                if (!ChannelChunks.writeSome(channel, pending.peek())) {
                    return false;
                }
                pending.poll().release();
                pendingSinceNanos = System.nanoTime();
            }
        } finally {
            if (waited && pending.isEmpty()) {
                backlog.cleared();
            }
        }
        if (shutdownOutputWhenFlushed) {
            shutdownOutput();
        }
        return true;
    }

    /** Half-closes the socket once every frame sent so far is written (after a connection-ending error). */
    synchronized void shutdownOutputWhenWritten() {
        if (pending.isEmpty()) {
            shutdownOutput();
        } else {
            shutdownOutputWhenFlushed = true;
        }
    }

    private void shutdownOutput() {
        try {
            channel.shutdownOutput();
        } catch (IOException ignored) {
            // the peer is gone: the close follows
        }
    }

    /** True when frames have waited for the socket longer than {@code nanos} (the client stopped reading). */
    synchronized boolean pendingLongerThan(long nanos, long now) {
        return !pending.isEmpty() && now - pendingSinceNanos > nanos;
    }

    boolean isClosed() {
        return closed;
    }

    /** Drops every unwritten frame; later frames are dropped as sent. False when it was closed already. */
    synchronized boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        if (!pending.isEmpty()) {
            backlog.cleared();
        }
        for (ResponseFrame f : pending) {
            f.release();
        }
        pending.clear();
        return true;
    }
}
