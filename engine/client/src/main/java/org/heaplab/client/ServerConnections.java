package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.heaplab.rpc.client.RpcConnection;

/**
 * One {@link RpcConnection} (one socket) per server, opened at first use and shared by every thread
 * of the {@link Connection} (HBase's default: one connection per server, calls multiplexed by call
 * id). A connection that failed is replaced by a new one at the next use.
 *
 * <p>Thread safety: thread safe; opening a socket holds only that server's lock, so a dead server
 * does not stall calls to the others.
 */
final class ServerConnections {
    private final ClientSettings settings;
    private final Map<String, RpcConnection> open = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ServerConnections(ClientSettings settings) {
        this.settings = settings;
    }

    /**
     * The open connection to {@code server} ("host:port"), opening it if needed.
     *
     * @throws ConnectFailedException when the socket cannot be opened (nothing was sent)
     * @throws IOException when this client is closed
     */
    RpcConnection get(String server) throws IOException {
        RpcConnection c = open.get(server);
        if (c != null && c.isOpen()) {
            return c;
        }
        synchronized (locks.computeIfAbsent(server, s -> new Object())) {
            checkOpen();
            c = open.get(server);
            if (c != null && c.isOpen()) {
                return c;
            }
            int colon = server.lastIndexOf(':');
            try {
                c = RpcConnection.open(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)),
                    settings.connectTimeoutMs(), settings.rpcTimeoutMs());
            } catch (IOException e) {
                throw new ConnectFailedException(server, e);
            }
            open.put(server, c);
            if (closed) { // closed while we connected
                c.close();
                checkOpen();
            }
            return c;
        }
    }

    /** Closes the connection to {@code server} if it is open (after a call to it timed out). */
    void drop(String server) {
        RpcConnection c = open.remove(server);
        if (c != null) {
            c.close();
        }
    }

    void checkOpen() throws IOException {
        if (closed) {
            throw new ClientClosedException();
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Closes every socket; calls in flight fail, later ones throw. */
    void close() {
        closed = true;
        for (RpcConnection c : new ArrayList<>(open.values())) {
            c.close();
        }
        open.clear();
    }

    /** The socket to a server could not be opened: nothing was sent, so any call may be retried. */
    static final class ConnectFailedException extends IOException {
        final String server;

        ConnectFailedException(String server, IOException cause) {
            super("cannot connect to " + server + ": " + (cause.getMessage() == null ? cause.toString() : cause.getMessage()),
                cause);
            this.server = server;
        }
    }

    /** This client was closed: calls stop at once, never retried. */
    static final class ClientClosedException extends IOException {
        ClientClosedException() {
            super("the connection was closed by this client");
        }
    }
}
