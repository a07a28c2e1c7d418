package org.heaplab.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.region.NoSuchColumnFamilyException;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.rpc.protocol.RegionLocationCodec;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.RowsCodec;
import org.heaplab.rpc.server.RpcServer;
import org.heaplab.rpc.server.RpcServers;
import org.heaplab.rpc.server.RpcService;

/**
 * Fake region servers and a fake master on loopback, real sockets and the real RPC server: each region
 * server keeps rows in memory (one cell per row, the last put's) and answers NOT_SERVING_REGION for rows
 * outside the regions the master's table assigns to it, as a cluster region server does, and
 * NO_SUCH_COLUMN_FAMILY to a PUT with a cell of another family than {@link #F}. Failures can be injected
 * per server and method. Only what the client tests need.
 */
final class FakeCluster implements AutoCloseable {
    static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    static final byte[] F = "f".getBytes();
    static final byte[] Q = "q".getBytes();

    /** ErrorMapping maps exceptions by simple name: these become NOT_SERVING_REGION and SERVER_BUSY. */
    static final class NotServingRegionException extends IOException {
        NotServingRegionException(String m) {
            super(m);
        }
    }

    static final class CallQueueTooBigException extends IOException {
        CallQueueTooBigException() {
            super("call queue full");
        }
    }

    static final class TableNotFoundException extends IOException {
        TableNotFoundException(String t) {
            super("table " + t + " not found");
        }
    }

    final class Server implements RpcService {
        final RpcServer rpc;
        final NavigableMap<byte[], byte[]> rows = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
        final Map<Method, AtomicInteger> calls = new ConcurrentHashMap<>();
        final Map<Method, Deque<IOException>> failures = new ConcurrentHashMap<>();
        /** Cells per PUT call, in arrival order. */
        final List<Integer> putSizes = new CopyOnWriteArrayList<>();

        Server() throws IOException {
            rpc = RpcServers.fromConf(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), this,
                new Configuration().set("hbase.regionserver.handler.count", "4"), line -> { });
            rpc.start();
        }

        String address() {
            return HOST + ":" + rpc.port();
        }

        int calls(Method m) {
            AtomicInteger n = calls.get(m);
            return n == null ? 0 : n.get();
        }

        /** The next {@code n} calls of {@code m} fail with {@code e}. */
        void failNext(Method m, int n, IOException e) {
            Deque<IOException> d = failures.computeIfAbsent(m, k -> new ArrayDeque<>());
            synchronized (d) {
                for (int i = 0; i < n; i++) {
                    d.add(e);
                }
            }
        }

        private void check(String table, byte[] row) throws IOException {
            for (RegionLocation l : locations) {
                if (l.table().equals(table) && l.contains(row)) {
                    if (l.server().equals(address())) {
                        return;
                    }
                    break;
                }
            }
            throw new NotServingRegionException("row " + new String(row) + " is not served by " + address());
        }

        @Override
        public Reply call(Request request) throws IOException {
            Method m = request.method();
            calls.computeIfAbsent(m, k -> new AtomicInteger()).incrementAndGet();
            Deque<IOException> d = failures.get(m);
            if (d != null) {
                IOException e;
                synchronized (d) {
                    e = d.poll();
                }
                if (e != null) {
                    throw e;
                }
            }
            ParamReader in = request.paramReader();
            String table = in.readString();
            switch (m) {
                case PUT -> {
                    for (org.heaplab.core.cell.Cell kv : request.cells()) { // all or nothing, as the region server
                        if (!Arrays.equals(kv.family(), F)) { // every fake table has the one family F
                            throw new NoSuchColumnFamilyException(table, new String(kv.family()));
                        }
                        check(table, kv.row());
                    }
                    for (org.heaplab.core.cell.Cell kv : request.cells()) {
                        rows.put(kv.row(), kv.value());
                    }
                    putSizes.add(request.cells().size());
                    return Reply.EMPTY;
                }
                case GET -> {
                    byte[] row = in.readBytes();
                    check(table, row);
                    return new Reply(new byte[0], cells(row));
                }
                case MULTI_GET -> {
                    int n = in.readInt();
                    List<List<KeyValue>> found = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        byte[] row = in.readBytes();
                        int qualifiers = in.readInt();
                        for (int k = 0; k < qualifiers; k++) {
                            in.readBytes();
                        }
                        check(table, row);
                        found.add(cells(row));
                    }
                    ParamWriter w = new ParamWriter();
                    RowsCodec.writeCounts(w, found);
                    return new Reply(w.toByteArray(), RowsCodec.flatten(found));
                }
                case SCAN -> {
                    byte[] start = in.readBytes();
                    byte[] stop = in.readBytes();
                    int caching = in.readInt();
                    check(table, start);
                    NavigableMap<byte[], byte[]> range = stop.length == 0 ? rows.tailMap(start, true)
                        : rows.subMap(start, true, stop, false);
                    List<List<KeyValue>> found = new ArrayList<>();
                    byte[] next = null;
                    for (byte[] row : range.keySet()) {
                        if (found.size() == caching) {
                            next = row;
                            break;
                        }
                        check(table, row); // a region server never scans into a region it does not hold
                        found.add(cells(row));
                    }
                    ParamWriter w = new ParamWriter();
                    RowsCodec.writeCounts(w, found);
                    w.writeBoolean(next != null);
                    if (next != null) {
                        w.writeBytes(next);
                    }
                    return new Reply(w.toByteArray(), RowsCodec.flatten(found));
                }
                case INCREMENT -> {
                    byte[] row = in.readBytes();
                    check(table, row);
                    in.readBytes();
                    in.readBytes();
                    long delta = in.readLong();
                    synchronized (rows) {
                        byte[] old = rows.get(row);
                        long v = (old == null ? 0 : Long.parseLong(new String(old))) + delta;
                        rows.put(row, Long.toString(v).getBytes());
                        return Reply.of(new ParamWriter().writeLong(v));
                    }
                }
                case LIST_REGIONS -> {
                    return Reply.of(new ParamWriter().writeInt(0));
                }
                default -> throw new IllegalArgumentException("fake region server: no " + m);
            }
        }

        private List<KeyValue> cells(byte[] row) {
            byte[] v = rows.get(row);
            return v == null ? List.of() : List.of(KeyValue.create(row, F, Q, 1L, KeyValue.Type.PUT, v));
        }

        void stop() {
            rpc.stop();
        }
    }

    /** The master: answers LOCATE from {@link #locations}. */
    final class Master implements RpcService {
        final RpcServer rpc;
        final AtomicInteger locates = new AtomicInteger();
        /** The next this-many LOCATE calls fail with IO_ERROR (the master is still starting). */
        final AtomicInteger failLocates = new AtomicInteger();

        Master() throws IOException {
            rpc = RpcServers.fromConf(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), this,
                new Configuration().set("hbase.regionserver.handler.count", "2"), line -> { });
            rpc.start();
        }

        @Override
        public Reply call(Request request) throws IOException {
            if (request.method() != Method.LOCATE) {
                throw new IllegalArgumentException("fake master: no " + request.method());
            }
            locates.incrementAndGet();
            if (failLocates.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IOException("master still loading its assignments");
            }
            String table = request.paramReader().readString();
            List<RegionLocation> mine = locations.stream().filter(l -> l.table().equals(table)).toList();
            if (mine.isEmpty()) {
                throw new TableNotFoundException(table);
            }
            ParamWriter w = new ParamWriter();
            RegionLocationCodec.write(w, mine);
            return Reply.of(w);
        }
    }

    final Master master;
    final List<Server> servers = new ArrayList<>();
    /** What LOCATE answers, and which rows each server accepts. */
    volatile List<RegionLocation> locations = List.of();

    FakeCluster(int regionServers) throws IOException {
        master = new Master();
        for (int i = 0; i < regionServers; i++) {
            servers.add(new Server());
        }
    }

    /** Table {@code table} split at {@code splits}, region i on server (i mod servers) unless {@code assign} says otherwise. */
    void table(String table, String[] splits, int... assign) {
        List<RegionLocation> out = new ArrayList<>(locations.stream().filter(l -> !l.table().equals(table)).toList());
        for (int i = 0; i <= splits.length; i++) {
            byte[] start = i == 0 ? new byte[0] : splits[i - 1].getBytes();
            byte[] end = i == splits.length ? new byte[0] : splits[i].getBytes();
            int s = assign.length > i ? assign[i] : i % servers.size();
            out.add(new RegionLocation(table, table + "-r" + i, start, end, servers.get(s).address(), true));
        }
        locations = List.copyOf(out);
    }

    /** Points region {@code index} of {@code table} at {@code server} ("host:port", e.g. a {@link CrashingServer}). */
    void assign(String table, int index, String server) {
        List<RegionLocation> out = new ArrayList<>();
        int i = 0;
        for (RegionLocation l : locations) {
            out.add(l.table().equals(table) && i++ == index
                ? new RegionLocation(l.table(), l.encodedName(), l.startKey(), l.endKey(), server, true) : l);
        }
        locations = List.copyOf(out);
    }

    /** Moves region {@code index} of {@code table} to server {@code to}, marking its server online or not. */
    void move(String table, int index, int to, boolean online) {
        List<RegionLocation> out = new ArrayList<>();
        int i = 0;
        for (RegionLocation l : locations) {
            if (l.table().equals(table) && i++ == index) {
                out.add(new RegionLocation(l.table(), l.encodedName(), l.startKey(), l.endKey(), servers.get(to).address(),
                    online));
            } else {
                out.add(l);
            }
        }
        locations = List.copyOf(out);
    }

    Configuration clientConf() {
        return new Configuration().set(Connection.MASTERS_KEY, HOST + ":" + master.rpc.port())
            .set(ClientSettings.PAUSE_KEY, "5").set(ClientSettings.RETRIES_KEY, "5");
    }

    @Override
    public void close() {
        servers.forEach(Server::stop);
        master.rpc.stop();
    }
}
