package org.heaplab.server.master;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableExistsException;
import org.heaplab.core.region.TableNotFoundException;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionListCodec;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.server.ServerLog;
import org.heaplab.server.TableSpec;

/**
 * The master's tables: creation (round-robin assignment, OPEN_REGIONS to every chosen server in parallel,
 * rollback when one fails), removal, LOCATE, and the table operations forwarded to the servers holding a
 * table (FLUSH, MAJOR_COMPACT, LIST_REGIONS). Every change is persisted by {@link MasterStore} before it is
 * answered.
 *
 * <p>Thread safety: DDL (create, drop) is serialized by one lock; reads use a concurrent map of immutable
 * {@link AssignedTable}s.
 */
final class TableManager {
    private final MasterStore store;
    private final ServerRegistry registry;
    private final RegionServerClients clients;
    private final Map<String, AssignedTable> tables = new ConcurrentHashMap<>();
    private final Object ddlLock = new Object();

    TableManager(MasterStore store, ServerRegistry registry, RegionServerClients clients) throws IOException {
        this.store = store;
        this.registry = registry;
        this.clients = clients;
        for (AssignedTable t : store.load()) {
            tables.put(t.name(), t);
        }
    }

    int tableCount() {
        return tables.size();
    }

    int regionCount() {
        return tables.values().stream().mapToInt(t -> t.spec().regionCount()).sum();
    }

    List<String> tableNames() {
        return tables.keySet().stream().sorted().toList();
    }

    boolean exists(String table) {
        return tables.containsKey(table);
    }

    /**
     * CREATE_TABLE: regions round robin over the online servers sorted by name, OPEN_REGIONS to each in
     * parallel; if one fails, DROP_TABLE on those that succeeded and answer the failure.
     */
    void create(TableSpec spec) throws IOException {
        synchronized (ddlLock) {
            if (tables.containsKey(spec.name())) {
                throw new TableExistsException(spec.name());
            }
            List<String> online = registry.onlineServers();
            if (online.isEmpty()) {
                throw new IOException("cannot create table " + spec.name() + ": no region server is online (start region "
                    + "servers with hbase.cluster.distributed=true and hbase.masters naming this master)");
            }
            AssignedTable t = AssignedTable.roundRobin(spec, System.currentTimeMillis(), online);
            Map<String, byte[]> params = new LinkedHashMap<>();
            t.regionsByServer().forEach((server, indexes) -> {
                ParamWriter w = spec.write(new ParamWriter()).writeLong(t.createdMs()).writeInt(indexes.size());
                indexes.forEach(w::writeInt);
                params.put(server, w.toByteArray());
            });
            List<RegionServerClients.Outcome> outcomes = clients.callAll(Method.OPEN_REGIONS, params);
            List<RegionServerClients.Outcome> failed = outcomes.stream().filter(o -> !o.ok()).toList();
            if (!failed.isEmpty()) {
                rollback(spec.name(), outcomes);
                RegionServerClients.Outcome first = failed.get(0);
                throw new IOException("cannot create table " + spec.name() + ": OPEN_REGIONS on " + first.server()
                    + " failed: " + first.failure().getMessage() + "; rolled back on the other servers");
            }
            store.save(t);
            tables.put(t.name(), t);
            ServerLog.info("created table " + t.name() + ": " + spec.regionCount() + " regions over " + params.keySet());
        }
    }

    private void rollback(String table, List<RegionServerClients.Outcome> outcomes) {
        Map<String, byte[]> drops = new LinkedHashMap<>();
        byte[] p = new ParamWriter().writeString(table).toByteArray();
        outcomes.stream().filter(RegionServerClients.Outcome::ok).forEach(o -> drops.put(o.server(), p));
        for (RegionServerClients.Outcome o : clients.callAll(Method.DROP_TABLE, drops)) {
            if (!o.ok()) {
                ServerLog.warn("rollback of table " + table + " on " + o.server() + " failed: " + o.failure().getMessage()
                    + "; drop it there by hand");
            }
        }
    }

    /**
     * DROP_TABLE: forwarded to every server holding the table (all must be online); forgotten once all
     * answered (a server that no longer has it counts as done).
     */
    void drop(String table) throws IOException {
        synchronized (ddlLock) {
            AssignedTable t = table(table);
            forward(t, Method.DROP_TABLE, true);
            store.delete(table);
            tables.remove(table);
            ServerLog.info("dropped table " + table);
        }
    }

    /** FLUSH or MAJOR_COMPACT: forwarded to every server holding the table, answered when all answered. */
    void forward(String table, Method method) throws IOException {
        forward(table(table), method, false);
    }

    /** LIST_REGIONS: every holder's regions of the table, in start-key order. */
    List<RegionInfo> regions(String table) throws IOException {
        List<RegionServerClients.Outcome> outcomes = forward(table(table), Method.LIST_REGIONS, false);
        List<RegionInfo> all = new ArrayList<>();
        for (RegionServerClients.Outcome o : outcomes) {
            all.addAll(RegionListCodec.read(o.response().paramReader()));
        }
        all.sort((a, b) -> Arrays.compareUnsigned(a.startKey(), b.startKey()));
        return all;
    }

    private List<RegionServerClients.Outcome> forward(AssignedTable t, Method method, boolean missingIsDone)
        throws IOException {
        List<String> holders = new ArrayList<>(t.regionsByServer().keySet());
        List<String> down = holders.stream().filter(s -> !registry.isOnline(s)).toList();
        if (!down.isEmpty()) {
            throw new IOException(method + " of table " + t.name() + " needs every server holding it, but " + down
                + (down.size() == 1 ? " is" : " are") + " down; retry once " + (down.size() == 1 ? "it is" : "they are")
                + " back (the master does not reassign regions)");
        }
        byte[] p = new ParamWriter().writeString(t.name()).toByteArray();
        Map<String, byte[]> params = new LinkedHashMap<>();
        holders.forEach(s -> params.put(s, p));
        List<RegionServerClients.Outcome> outcomes = clients.callAll(method, params);
        List<RegionServerClients.Outcome> failed = outcomes.stream().filter(o -> !o.ok())
            .filter(o -> !(missingIsDone && o.failure() instanceof RemoteException re
                && re.code() == ErrorCode.TABLE_NOT_FOUND))
            .toList();
        if (!failed.isEmpty()) {
            throw new IOException(method + " of table " + t.name() + " failed on " + failed.stream()
                .map(o -> o.server() + " (" + o.failure().getMessage() + ")").collect(Collectors.joining(", ")));
        }
        return outcomes;
    }

    /** LOCATE: every region of the table in start-key order, with its server and whether that server is online. */
    List<RegionLocation> locate(String table) throws TableNotFoundException {
        AssignedTable t = table(table);
        List<RegionLocation> out = new ArrayList<>();
        for (int i = 0; i < t.spec().regionCount(); i++) {
            String server = t.servers().get(i);
            out.add(new RegionLocation(table, t.encodedName(i), t.spec().startKey(i), t.spec().endKey(i), server,
                registry.isOnline(server)));
        }
        return out;
    }

    private AssignedTable table(String name) throws TableNotFoundException {
        AssignedTable t = tables.get(name);
        if (t == null) {
            throw new TableNotFoundException(name);
        }
        return t;
    }
}
