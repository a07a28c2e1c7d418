package org.heaplab.rpc.simple;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The {@link SimpleRpcServer}'s one responder thread: finishes the responses a handler could not write
 * without blocking (a slow client, a big scan answer). Handlers write inline whenever the socket takes
 * the whole frame, so the responder only sees connections whose send buffer is full; it watches them
 * for OP_WRITE on its own selector and writes their pending frames in order.
 *
 * <p>A client that stops reading would make its pending responses pile up: a connection whose oldest
 * pending frame waited longer than hbase.ipc.client.call.purge.timeout (HBase's purge) is closed.
 *
 * <p>Thread safety: {@link #watch} from any thread; everything else on the responder thread.
 */
final class Responder implements Runnable {
    private final Selector selector;
    private final SimpleRpcServer server;
    private final long purgeNanos;
    private final Queue<SimpleConnection> toWatch = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;

    Responder(SimpleRpcServer server, long purgeNanos) throws IOException {
        this.server = server;
        this.purgeNanos = purgeNanos;
        this.selector = Selector.open();
    }

    /** {@code c} has pending frames: write them when its socket is writable. */
    void watch(SimpleConnection c) {
        toWatch.add(c);
        selector.wakeup();
    }

    void shutdown() {
        running = false;
        selector.wakeup();
    }

    @Override
    public void run() {
        long lastPurge = System.nanoTime();
        try {
            while (running) {
                selector.select(1000);
                SimpleConnection c;
                while ((c = toWatch.poll()) != null) {
                    try {
                        SelectionKey key = c.channel.keyFor(selector);
                        if (key == null) {
                            c.channel.register(selector, SelectionKey.OP_WRITE, c);
                        } else {
                            key.interestOps(SelectionKey.OP_WRITE);
                        }
                    } catch (ClosedChannelException | CancelledKeyException e) {
                        // closed meanwhile: its frames were released by close()
                    }
                }
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    try {
                        if (key.isValid() && key.isWritable() && ((SimpleConnection) key.attachment()).flush()
                            && key.isValid()) {
                            key.interestOps(0); // nothing left: until a handler hands over again
                        }
                    } catch (CancelledKeyException e) {
                        // closed meanwhile
                    }
                }
                long now = System.nanoTime();
                if (now - lastPurge > 1_000_000_000L) {
                    lastPurge = now;
                    purge(now);
                }
            }
        } catch (IOException | RuntimeException e) {
            if (running) {
                server.log("responder failed: " + e);
            }
        } finally {
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private void purge(long now) {
        for (SelectionKey key : selector.keys()) {
            SimpleConnection c = (SimpleConnection) key.attachment();
            if (c != null && c.pendingLongerThan(purgeNanos, now)) {
                server.log("closing " + c.remoteAddress() + ": its responses waited over "
                    + SimpleRpcServer.PURGE_TIMEOUT_KEY + " for the client to read them");
                c.close();
            }
        }
    }
}
