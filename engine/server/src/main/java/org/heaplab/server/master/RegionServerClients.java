package org.heaplab.server.master;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.Response;

/**
 * The master's connections to region servers (OPEN_REGIONS, and DROP_TABLE / FLUSH / MAJOR_COMPACT /
 * LIST_REGIONS forwarded): one {@link RpcConnection} per server, opened on first use and again after it
 * failed. {@link #callAll} sends one call to several servers in parallel and waits for every answer.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class RegionServerClients implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MS = 3000;

    private final long callTimeoutMs;
    private final Map<String, RpcConnection> connections = new HashMap<>();
    private final ExecutorService pool;

    RegionServerClients(long callTimeoutMs) {
        this.callTimeoutMs = callTimeoutMs;
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "master-rs-call-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * One call to {@code server}. A connection failure drops the connection and the call is sent once more
     * on a new one: a cached connection may be stale (the server restarted since), and every call the master
     * makes (OPEN_REGIONS, DROP_TABLE, FLUSH, MAJOR_COMPACT, LIST_REGIONS) is safe to repeat.
     */
    Response call(String server, Method method, byte[] params) throws IOException {
        try {
            return callOnce(server, method, params);
        } catch (RemoteException e) {
            throw e;
        } catch (IOException e) {
            return callOnce(server, method, params);
        }
    }

    private Response callOnce(String server, Method method, byte[] params) throws IOException {
        RpcConnection c = connection(server);
        try {
            return c.call(method, params, List.of());
        } catch (RemoteException e) {
            throw e; // the server answered: the connection is fine
        } catch (IOException e) {
            drop(server, c);
            throw e;
        }
    }

    /** The outcome of one server's call in {@link #callAll}: a response or the failure. */
    record Outcome(String server, Response response, IOException failure) {
        boolean ok() {
            return failure == null;
        }
    }

    /** Sends {@code params.get(server)} to every server in parallel; returns every outcome, in the map's order. */
    List<Outcome> callAll(Method method, Map<String, byte[]> params) {
        Map<String, Future<Response>> futures = new LinkedHashMap<>();
        params.forEach((server, p) -> futures.put(server, pool.submit(() -> call(server, method, p))));
        List<Outcome> out = new ArrayList<>();
        futures.forEach((server, f) -> {
            try {
                out.add(new Outcome(server, f.get(), null));
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                out.add(new Outcome(server, null, c instanceof IOException io ? io : new IOException(c.toString(), c)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.add(new Outcome(server, null, new InterruptedIOException("interrupted")));
            }
        });
        return out;
    }

    private synchronized RpcConnection connection(String server) throws IOException {
        RpcConnection c = connections.get(server);
        if (c == null || !c.isOpen()) {
            int colon = server.lastIndexOf(':');
            try {
                c = RpcConnection.open(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)),
                    CONNECT_TIMEOUT_MS, callTimeoutMs);
            } catch (IOException e) {
                throw new IOException("cannot connect to region server " + server + ": " + e.getMessage(), e);
            }
            connections.put(server, c);
        }
        return c;
    }

    private synchronized void drop(String server, RpcConnection c) {
        c.close();
        connections.remove(server, c);
    }

    @Override
    public synchronized void close() {
        connections.values().forEach(RpcConnection::close);
        connections.clear();
        pool.shutdownNow();
    }
}
