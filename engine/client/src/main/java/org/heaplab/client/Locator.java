package org.heaplab.client;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.rpc.protocol.RegionLocationCodec;

/**
 * Finds the region server of a row: the {@link LocationCache} first, else one LOCATE call to the
 * locator, which is the master (hbase.masters) in a cluster and the region server itself in
 * standalone mode: one code path for both. Also the target of table management calls (CREATE_TABLE,
 * FLUSH, ...), which the master forwards in a cluster.
 *
 * <p>Thread safety: thread safe. Threads that miss the cache for the same table wait for one LOCATE
 * instead of each sending their own.
 */
final class Locator {
    private final List<String> addresses;
    private final boolean viaMaster;
    private final ServerConnections connections;
    private final LocationCache cache = new LocationCache();
    private final Map<String, Object> tableLocks = new ConcurrentHashMap<>();
    private final AtomicLong locateCalls = new AtomicLong();
    private volatile String current;

    /**
     * @param addresses "host:port" of the masters (tried in order) or of the one standalone region server
     * @param viaMaster true when {@code addresses} are masters
     */
    Locator(List<String> addresses, boolean viaMaster, ServerConnections connections) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("no locator address");
        }
        this.addresses = List.copyOf(addresses);
        this.viaMaster = viaMaster;
        this.connections = connections;
        this.current = addresses.get(0);
    }

    boolean viaMaster() {
        return viaMaster;
    }

    /** The locator's address last connected to. */
    String address() {
        return current;
    }

    /** The connection to the first locator that accepts one (masters in the order of hbase.masters). */
    RpcConnection connection() throws IOException {
        IOException last = null;
        for (String a : addresses) {
            try {
                RpcConnection c = connections.get(a);
                current = a;
                return c;
            } catch (ServerConnections.ConnectFailedException e) {
                last = e;
            }
        }
        throw last;
    }

    /** The region holding {@code row}: cached, or located now (one LOCATE for the whole table). */
    RegionLocation locate(String table, byte[] row) throws IOException {
        RegionLocation l = cache.find(table, row);
        if (l != null) {
            return l;
        }
        synchronized (tableLocks.computeIfAbsent(table, t -> new Object())) {
            l = cache.find(table, row); // another thread may have located it meanwhile
            if (l == null) {
                locateTable(table);
                l = cache.find(table, row);
            }
        }
        if (l == null) {
            throw new NoRegionException(table, row);
        }
        return l;
    }

    /** Sends LOCATE for {@code table} and caches the answer (every region, start-key order). */
    List<RegionLocation> locateTable(String table) throws IOException {
        RpcConnection c = connection();
        locateCalls.incrementAndGet();
        List<RegionLocation> regions = RegionLocationCodec.read(
            c.call(Method.LOCATE, new ParamWriter().writeString(table).toByteArray(), List.of()).paramReader());
        cache.put(table, regions);
        return regions;
    }

    /** Drops what {@code failure} made stale: the table's locations, or everything on {@code server}. */
    void invalidate(Failure failure, String table, String server) {
        switch (failure) {
            case NOT_SERVING_REGION -> {
                if (table != null) {
                    cache.invalidate(table);
                }
            }
            case SERVER_UNREACHABLE, CONNECTION_LOST -> {
                if (server != null) {
                    cache.invalidateServer(server);
                }
            }
            default -> {
                // the locations still hold
            }
        }
    }

    LocationCache cache() {
        return cache;
    }

    /** LOCATE calls sent so far (tests count relocations). */
    long locateCalls() {
        return locateCalls.get();
    }

    /** LOCATE's answer has no region holding the row (a table being created): relocate and retry. */
    static final class NoRegionException extends IOException {
        NoRegionException(String table, byte[] row) {
            super("no region of table " + table + " holds row " + Keys.printable(row));
        }
    }
}
