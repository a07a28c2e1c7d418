package org.heaplab.server.master;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.List;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionListCodec;
import org.heaplab.rpc.protocol.RegionLocationCodec;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.ServerStatus;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.server.ClusterStatusJson;
import org.heaplab.server.TableSpec;

/**
 * What the master answers (engine/docs/cluster.md): REGISTER and HEARTBEAT from region servers; LOCATE,
 * CLUSTER_STATUS, STATUS and the table methods from clients (CREATE_TABLE, DROP_TABLE, TABLE_EXISTS,
 * LIST_TABLES, and FLUSH, MAJOR_COMPACT, LIST_REGIONS forwarded to the servers holding the table). The data
 * methods are refused: the master serves no regions.
 *
 * <p>Thread safety: called by every handler thread; the registry and table manager are thread safe.
 */
final class MasterRpcService implements RpcService {
    private final ServerRegistry registry;
    private final long heartbeatIntervalMs;
    private final long startMillis = System.currentTimeMillis();
    private volatile TableManager tables;
    private volatile String address = "";
    private volatile String rpcServerName = "";
    private volatile int handlers;

    MasterRpcService(ServerRegistry registry, long heartbeatIntervalMs) {
        this.registry = registry;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
    }

    void bound(String address, String rpcServerName, int handlers) {
        this.address = address;
        this.rpcServerName = rpcServerName;
        this.handlers = handlers;
    }

    /** Starts answering the table methods (until then they fail: the tables are still loading). */
    void online(TableManager tables) {
        this.tables = tables;
    }

    @Override
    public Reply call(Request request) throws IOException {
        TableManager t = tables;
        if (t == null) {
            throw new IOException("master " + address + " is still starting");
        }
        ParamReader in = request.paramReader();
        return switch (request.method()) {
            case REGISTER -> {
                registry.register(in.readString(), in.readLong(), in.readString());
                yield Reply.of(new ParamWriter().writeLong(heartbeatIntervalMs));
            }
            case HEARTBEAT -> Reply.of(new ParamWriter().writeBoolean(
                registry.heartbeat(in.readString(), in.readLong(), in.readInt(), in.readLong())));
            case LOCATE -> {
                ParamWriter w = new ParamWriter();
                RegionLocationCodec.write(w, t.locate(in.readString()));
                yield Reply.of(w);
            }
            case CLUSTER_STATUS -> Reply.of(new ParamWriter().writeString(
                ClusterStatusJson.of(address, registry.loads(), t.tableCount(), t.regionCount())));
            case STATUS -> {
                MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
                ParamWriter w = new ParamWriter();
                new ServerStatus(address, rpcServerName, System.currentTimeMillis() - startMillis, t.tableCount(),
                    t.regionCount(), handlers, heap.getUsed(), heap.getMax()).write(w);
                yield Reply.of(w);
            }
            case CREATE_TABLE -> {
                t.create(TableSpec.read(in, false));
                yield Reply.EMPTY;
            }
            case DROP_TABLE -> {
                t.drop(in.readString());
                yield Reply.EMPTY;
            }
            case TABLE_EXISTS -> Reply.of(new ParamWriter().writeBoolean(t.exists(in.readString())));
            case LIST_TABLES -> {
                List<String> names = t.tableNames();
                ParamWriter w = new ParamWriter().writeInt(names.size());
                names.forEach(w::writeString);
                yield Reply.of(w);
            }
            case FLUSH, MAJOR_COMPACT -> {
                t.forward(in.readString(), request.method());
                yield Reply.EMPTY;
            }
            case LIST_REGIONS -> {
                ParamWriter w = new ParamWriter();
                RegionListCodec.write(w, t.regions(in.readString()));
                yield Reply.of(w);
            }
            case PUT, GET, MULTI_GET, SCAN, INCREMENT, DELETE -> throw new IllegalArgumentException(
                "the master serves no regions; ask LOCATE (" + request.method() + " goes to the region server "
                    + "holding the row)");
            case METRICS -> throw new IllegalArgumentException("the master keeps no storage metrics; ask a region "
                + "server (CLUSTER_STATUS lists them)");
            case OPEN_REGIONS -> throw new IllegalArgumentException("OPEN_REGIONS goes from the master to a region "
                + "server; " + address + " is the master");
        };
    }
}
