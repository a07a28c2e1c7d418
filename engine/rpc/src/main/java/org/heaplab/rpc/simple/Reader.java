package org.heaplab.rpc.simple;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One of a {@link SimpleRpcServer}'s reader threads (hbase.ipc.server.read.threadpool.size): its own
 * selector over the connections the Listener gave it, reading frames and dispatching calls. A reader
 * never blocks on a socket or on a full call queue (that call is answered SERVER_BUSY), so one slow or
 * hostile client delays the others only by the time its bytes take to decode.
 *
 * <p>Thread safety: {@link #add} and {@link #forget} may be called from any thread (they queue and wake
 * the selector); everything else runs on the reader thread.
 */
final class Reader implements Runnable {
    private final Selector selector;
    private final SimpleRpcServer server;
    private final Queue<SimpleConnection> toRegister = new ConcurrentLinkedQueue<>();
    private final Queue<SimpleConnection> toForget = new ConcurrentLinkedQueue<>();
    private final Set<SimpleConnection> connections = new HashSet<>();
    private final Set<SimpleConnection> draining = new HashSet<>();
    private final ByteBuffer scratch = ByteBuffer.allocate(8192);
    private volatile boolean running = true;

    Reader(SimpleRpcServer server) throws IOException {
        this.server = server;
        this.selector = Selector.open();
    }

    /** A new connection for this reader (Listener thread). */
    void add(SimpleConnection c) {
        toRegister.add(c);
        selector.wakeup();
    }

    /** A closed connection: the reader releases its half-read body (any thread). */
    void forget(SimpleConnection c) {
        toForget.add(c);
        selector.wakeup();
    }

    /** Reader thread: {@code c} is draining input after a connection-ending error; check its deadline. */
    void watchDrain(SimpleConnection c) {
        draining.add(c);
    }

    /** Reader thread: a buffer for discarding input. */
    ByteBuffer scratch() {
        return scratch;
    }

    void shutdown() {
        running = false;
        selector.wakeup();
    }

    @Override
    public void run() {
        // how often connections are checked for a stall in the middle of a frame: a quarter of the timeout
        long stallCheckMs = Math.max(1, Math.min(1000, server.readTimeoutNanos() / 4_000_000));
        long lastStallCheck = System.nanoTime();
        try {
            while (running) {
                selector.select(draining.isEmpty() ? stallCheckMs : Math.min(250, stallCheckMs));
                register();
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    try {
                        if (key.isValid() && key.isReadable()) {
                            ((SimpleConnection) key.attachment()).read();
                        }
                    } catch (CancelledKeyException e) {
                        // closed meanwhile by another thread: forget() follows
                    } catch (RuntimeException | OutOfMemoryError e) {
                        // one connection's trouble (a request too big for the heap) must not stop the reader
                        SimpleConnection c = (SimpleConnection) key.attachment();
                        server.log("closing " + c.remoteAddress() + ": " + e);
                        c.close();
                    }
                }
                forgetClosed();
                long now = System.nanoTime();
                if (!draining.isEmpty()) {
                    draining.removeIf(c -> c.drainExpired(now));
                }
                if (now - lastStallCheck >= stallCheckMs * 1_000_000) {
                    lastStallCheck = now;
                    for (SimpleConnection c : connections) {
                        c.closeIfStalled(now); // close() queues it for forget(): no change to the set here
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            if (running) {
                server.log("reader " + Thread.currentThread().getName() + " failed: " + e);
            }
        } finally {
            register(); // connections added while stopping: their bodies are released below
            forgetClosed();
            for (SimpleConnection c : connections) {
                c.releasePartial(); // the server closes the connections themselves after the handlers finish
            }
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private void register() {
        SimpleConnection c;
        while ((c = toRegister.poll()) != null) {
            connections.add(c);
            try {
                c.channel.register(selector, SelectionKey.OP_READ, c);
            } catch (ClosedChannelException | CancelledKeyException e) {
                c.close();
            }
        }
    }

    private void forgetClosed() {
        SimpleConnection c;
        while ((c = toForget.poll()) != null) {
            c.releasePartial();
            connections.remove(c);
            draining.remove(c);
        }
    }
}
