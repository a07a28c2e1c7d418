package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionListCodec;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.rpc.protocol.ServerStatus;

/**
 * Table management and server information over a {@link Connection}. Table calls go to the locator
 * (the master, which forwards FLUSH and MAJOR_COMPACT to every server holding the table; or the
 * standalone region server), retried on the failures that allow it; {@link #regions} asks each region
 * server for its own regions. Thread safe.
 */
public final class Admin {
    private static final byte[] NONE = new byte[0];
    private final Connection connection;

    Admin(Connection connection) {
        this.connection = connection;
    }

    /**
     * Creates {@code desc}'s table split at {@code splitKeys} (sorted, distinct; empty for one region),
     * with its default durability and its family's encoding, bloom filter and in-memory flag (stored
     * with the table). Not retried once it may have reached the server (a retry would answer TABLE_EXISTS).
     */
    public void createTable(TableDescriptor desc, byte[][] splitKeys) throws IOException {
        ParamWriter w = new ParamWriter().writeString(desc.name()).writeBytes(desc.family())
            .writeString(desc.compression().name()).writeInt(splitKeys.length);
        for (byte[] k : splitKeys) {
            w.writeBytes(k);
        }
        w.writeString(desc.durability().name());
        // the family's store-file options
        w.writeString(desc.encoding().name()).writeString(desc.bloom().name()).writeBoolean(desc.inMemory());
        byte[] params = w.toByteArray();
        connection.locator().cache().invalidate(desc.name()); // a dropped table of that name may be cached
        connection.caller().callMaster("CREATE_TABLE", desc.name(), false,
            rpc -> rpc.call(Method.CREATE_TABLE, params, List.of()));
    }

    public void dropTable(String table) throws IOException {
        connection.locator().cache().invalidate(table);
        connection.caller().callMaster("DROP_TABLE", table, false, rpc -> rpc.call(Method.DROP_TABLE, tableParam(table), List.of()));
    }

    public boolean tableExists(String table) throws IOException {
        return call(Method.TABLE_EXISTS, table).readBoolean();
    }

    /** Flushes every memstore of the table; returns when the store files are written. */
    public void flush(String table) throws IOException {
        call(Method.FLUSH, table);
    }

    /** Merges each region's store files into one; returns when done. */
    public void majorCompact(String table) throws IOException {
        call(Method.MAJOR_COMPACT, table);
    }

    /** Every region of the table with its store files, in start-key order (each server asked for its own). */
    public List<RegionInfo> regions(String table) throws IOException {
        Map<String, RegionInfo> byName = new LinkedHashMap<>(); // each region once, whoever lists it
        regionsByServer(table).values().forEach(list -> list.forEach(r -> byName.putIfAbsent(r.encodedName(), r)));
        List<RegionInfo> all = new ArrayList<>(byName.values());
        all.sort(Comparator.comparing(RegionInfo::startKey, Arrays::compareUnsigned));
        return all;
    }

    /**
     * The regions of the table per region server ("host:port", in the order LOCATE lists them): a fresh
     * LOCATE, then LIST_REGIONS to each server holding a region.
     */
    public Map<String, List<RegionInfo>> regionsByServer(String table) throws IOException {
        Map<String, List<RegionInfo>> out = new LinkedHashMap<>();
        for (String server : servers(table)) {
            out.put(server, connection.caller().callServer("LIST_REGIONS", table, server,
                rpc -> RegionListCodec.read(rpc.call(Method.LIST_REGIONS, tableParam(table), List.of()).paramReader())));
        }
        return out;
    }

    /** The region servers ("host:port") holding a region of the table, in the order LOCATE lists them (a fresh LOCATE). */
    public List<String> servers(String table) throws IOException {
        List<RegionLocation> located = connection.caller().callMaster("LOCATE", table, true,
            rpc -> connection.locator().locateTable(table));
        Set<String> servers = new LinkedHashSet<>();
        located.forEach(l -> servers.add(l.server()));
        return new ArrayList<>(servers);
    }

    public List<String> tables() throws IOException {
        ParamReader r = connection.caller().callMaster("LIST_TABLES", null, true,
            rpc -> rpc.call(Method.LIST_TABLES, NONE, List.of()).paramReader());
        int n = r.readCount(1_000_000);
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add(r.readString());
        }
        return names;
    }

    /** STATUS of the locator (the master, or the standalone region server). */
    public ServerStatus status() throws IOException {
        return ServerStatus.read(connection.caller().callMaster("STATUS", null, true,
            rpc -> rpc.call(Method.STATUS, NONE, List.of())).paramReader());
    }

    /**
     * CLUSTER_STATUS: the master's view as JSON ({"master", "servers": [{"server", "online", "start_code",
     * "last_heartbeat_ms_ago", "regions", "requests", "info"}], "tables", "regions"}); a standalone region
     * server answers for itself.
     */
    public String clusterStatus() throws IOException {
        return connection.caller().callMaster("CLUSTER_STATUS", null, true,
            rpc -> rpc.call(Method.CLUSTER_STATUS, NONE, List.of())).paramReader().readString();
    }

    /** The locator's metrics as one JSON object; {@code gc} asks it to collect garbage before measuring. */
    public String metrics(boolean gc) throws IOException {
        return connection.caller().callMaster("METRICS", null, true, rpc -> rpc.call(Method.METRICS,
            new ParamWriter().writeBoolean(gc).toByteArray(), List.of())).paramReader().readString();
    }

    /** The metrics of the region server {@code server} ("host:port"). */
    public String metrics(String server, boolean gc) throws IOException {
        return connection.caller().callServer("METRICS", null, server, rpc -> rpc.call(Method.METRICS,
            new ParamWriter().writeBoolean(gc).toByteArray(), List.of())).paramReader().readString();
    }

    /**
     * The metrics of the region server {@code server} in ONE attempt, never retried (a measured window's
     * snapshot: a failure is recorded by the caller, it must not stall the run with backoffs); no --gc.
     */
    public String metricsOnce(String server) throws IOException {
        return connection.connections().get(server).call(Method.METRICS, new ParamWriter().writeBoolean(false).toByteArray(),
            List.of()).paramReader().readString();
    }

    private ParamReader call(Method method, String table) throws IOException {
        return connection.caller().callMaster(method.name(), table, true,
            rpc -> rpc.call(method, tableParam(table), List.of())).paramReader();
    }

    private static byte[] tableParam(String table) {
        return new ParamWriter().writeString(table).toByteArray();
    }
}
