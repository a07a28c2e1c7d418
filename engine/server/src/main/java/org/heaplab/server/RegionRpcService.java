package org.heaplab.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.Put;
import org.heaplab.core.region.PutDecoder;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.buffers.HeapRequestBuffers;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionListCodec;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.rpc.protocol.RegionLocationCodec;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.ServerStatus;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;

/**
 * Runs each RPC method against {@link OnlineRegions}: decodes the params in the order of
 * engine/docs/wire-protocol.md, calls the storage engine, encodes the answer. Until
 * {@link #online(OnlineRegions)} is called (the WAL is still replaying) every call fails with an
 * IOException, so a STATUS answer means the server is ready.
 *
 * <p>Thread safety: called by all handler threads at once; OnlineRegions is thread safe.
 */
public final class RegionRpcService implements RpcService {
    /** "host:port" of this server's RPC address (the bound port once {@link #bound} was called). */
    private volatile String serverName;
    private volatile String rpcServerName;
    /** hbase.masters in cluster mode; null when standalone. */
    private volatile String masters;
    /** "host:port" of the HTTP metrics endpoint, or "". */
    private volatile String infoAddress = "";
    private final LongAdder requests = new LongAdder();
    private final int handlers;
    private final long startMillis = System.currentTimeMillis();
    private volatile OnlineRegions regions;
    private volatile WritePath writePath;
    private volatile ServerMetrics metrics;
    private final ReadCalls reads = new ReadCalls();
    private final IncrementCall increments = new IncrementCall();
    private final RpcCallCounts calls = new RpcCallCounts();
    /** The table the last PUT or DELETE named (a hint only: racy updates are harmless). */
    private volatile String lastTable;

    public RegionRpcService(String serverName, String rpcServerName, int handlers) {
        this.serverName = serverName;
        this.rpcServerName = rpcServerName;
        this.handlers = handlers;
    }

    /** The RPC address once the port is bound (the configured port may be 0 in tests), and the RPC server's name. */
    public void bound(String address, String rpcServerName) {
        this.serverName = address;
        this.rpcServerName = rpcServerName;
    }

    /**
     * Cluster mode (hbase.cluster.distributed=true): tables arrive by OPEN_REGIONS from the master at
     * {@code masters}; CREATE_TABLE and LOCATE are refused with a message naming the master.
     */
    public void clusterMode(String masters) {
        this.masters = masters;
    }

    /** The HTTP metrics endpoint's "host:port" for CLUSTER_STATUS, or "". */
    public void infoAddress(String address) {
        this.infoAddress = address == null ? "" : address;
    }

    /** The start code the master knows this server by: the time this service was made, ms since the epoch. */
    public long startCode() {
        return startMillis;
    }

    /** Calls received so far (HEARTBEAT's requestCount). */
    public long requestCount() {
        return requests.sum();
    }

    /** Regions online now (0 while still opening). */
    public int regionCount() {
        OnlineRegions r = regions;
        return r == null ? 0 : r.stats().regionCount();
    }

    /** The METRICS call's and the HTTP endpoint's figures (null until {@link #online}). */
    public ServerMetrics metrics() {
        return metrics;
    }

    /** Starts answering calls with {@code regions}, writing puts through {@code writePath}. */
    public void online(OnlineRegions regions, WritePath writePath) {
        online(regions, writePath, new HeapRequestBuffers());
    }

    /** As above, with the RPC server's request buffers for the METRICS call's request_buffers group. */
    public void online(OnlineRegions regions, WritePath writePath, RequestBufferAllocator buffers) {
        this.metrics = new ServerMetrics(regions, buffers, reads, increments, calls);
        this.writePath = writePath;
        this.regions = regions;
    }

    /** {@link #online(OnlineRegions, WritePath)} with the legacy write path (tests). */
    public void online(OnlineRegions regions) {
        online(regions, new LegacyWritePath(regions));
    }

    /**
     * PUT and DELETE go through the write path, which may answer later from another thread; GET,
     * MULTI_GET and SCAN through {@link ReadCalls} (a read scope closed after the response is written);
     * the rest as before.
     */
    @Override
    public void call(Request request, ServerCall call) {
        requests.increment();
        calls.count(request.method(), request.cells());
        OnlineRegions r = regions;
        if (r == null) {
            RpcService.super.call(request, call);
            return;
        }
        switch (request.method()) {
            case GET, MULTI_GET, SCAN -> reads.call(r, request, call);
            case PUT, DELETE -> mutate(r, request, call);
            default -> RpcService.super.call(request, call);
        }
    }

    /** PUT and DELETE: string table, int durability (optional); the cells (delete markers for DELETE). */
    private void mutate(OnlineRegions r, Request request, ServerCall call) {
        String table;
        Durability durability;
        List<Put> puts;
        try {
            ParamReader in = request.paramReader();
            table = in.readString(lastTable); // the table of the previous put, if the same: no new String
            lastTable = table;
            // int durability (wire-protocol.md); absent from older clients: USE_DEFAULT
            durability = in.hasRemaining() ? Durability.fromCode(in.readInt()) : Durability.USE_DEFAULT;
            if (request.cells().isEmpty()) {
                throw new IllegalArgumentException(request.method().name().toLowerCase(Locale.ROOT) + " without cells");
            }
            List<? extends Cell> cells =
                request.method() == Method.DELETE ? Deletes.prepare(r, table, request.cells()) : request.cells();
            // RSRpcServices.put: ProtobufUtil.toPut, a Put with its family map per row (a delete's markers alike)
            puts = PutDecoder.toPuts(cells);
        } catch (Throwable t) {
            call.fail(t);
            return;
        }
        if (puts.isEmpty()) { // deletes of versions that do not exist
            call.reply(Reply.EMPTY);
            return;
        }
        writePath.put(table, puts, durability, call);
    }

    @Override
    public Reply call(Request request) throws IOException {
        try {
            return answer(request);
        } catch (IOException | RuntimeException e) {
            DiskFull.note(e); // a flush, compaction or create on a full disk
            throw e;
        }
    }

    private Reply answer(Request request) throws IOException {
        OnlineRegions r = regions;
        if (r == null) {
            throw new IOException("region server " + serverName + " is still opening its regions (replaying the WAL)");
        }
        ParamReader in = request.paramReader();
        return switch (request.method()) {
            case STATUS -> status(r);
            case CREATE_TABLE -> createTable(r, in);
            case DROP_TABLE -> {
                r.dropTable(in.readString());
                yield Reply.EMPTY;
            }
            case TABLE_EXISTS -> Reply.of(new ParamWriter().writeBoolean(r.tableExists(in.readString())));
            case LIST_TABLES -> {
                List<String> tables = r.tables();
                ParamWriter w = new ParamWriter().writeInt(tables.size());
                tables.forEach(w::writeString);
                yield Reply.of(w);
            }
            case PUT, DELETE, GET, MULTI_GET, SCAN -> throw new IllegalStateException(request.method()
                + " is answered by call(Request, ServerCall)");
            case INCREMENT -> increments.call(r, writePath, request);
            case FLUSH -> {
                r.flush(in.readString());
                yield Reply.EMPTY;
            }
            case MAJOR_COMPACT -> {
                r.majorCompact(in.readString());
                yield Reply.EMPTY;
            }
            case METRICS -> Reply.of(new ParamWriter().writeString(metrics.json(in.readBoolean())));
            case LIST_REGIONS -> {
                ParamWriter w = new ParamWriter();
                RegionListCodec.write(w, r.regions(in.readString()));
                yield Reply.of(w);
            }
            case LOCATE -> locate(r, in);
            case CLUSTER_STATUS -> clusterStatus(r);
            case OPEN_REGIONS -> openRegions(r, in);
            case REGISTER, HEARTBEAT -> throw new IllegalArgumentException(request.method() + " goes to the master; "
                + serverName + " is a region server");
        };
    }

    private Reply createTable(OnlineRegions r, ParamReader in) throws IOException {
        if (masters != null) {
            throw new IllegalArgumentException("region server " + serverName + " runs in cluster mode "
                + "(hbase.cluster.distributed=true): create tables through the master at " + masters);
        }
        TableSpec spec = TableSpec.read(in, false);
        r.createTable(spec.descriptor(), spec.splitKeys());
        return Reply.EMPTY;
    }

    /** OPEN_REGIONS: CREATE_TABLE's params, then long createdMs, int k, k x int regionIndex. */
    private Reply openRegions(OnlineRegions r, ParamReader in) throws IOException {
        if (masters == null) {
            throw new IllegalArgumentException("region server " + serverName + " is standalone "
                + "(hbase.cluster.distributed=false): only a master sends OPEN_REGIONS");
        }
        TableSpec spec = TableSpec.read(in, true);
        long createdMs = in.readLong();
        int k = in.readCount(spec.regionCount());
        int[] indexes = new int[k];
        for (int i = 0; i < k; i++) {
            indexes[i] = in.readInt();
        }
        r.createTable(spec.descriptor(), spec.splitKeys(), createdMs, indexes);
        ServerLog.info("serving regions " + Arrays.toString(indexes) + " of " + spec.regionCount()
            + " of table " + spec.name() + " (created " + createdMs + ")");
        return Reply.EMPTY;
    }

    /** LOCATE, standalone: every region of the table is here. */
    private Reply locate(OnlineRegions r, ParamReader in) throws IOException {
        if (masters != null) {
            throw new IllegalArgumentException("region server " + serverName + " runs in cluster mode: ask the master "
                + "at " + masters + " (hbase.masters) where a table's regions are");
        }
        String table = in.readString();
        List<RegionLocation> locations = new ArrayList<>();
        for (RegionInfo info : r.regions(table)) {
            locations.add(new RegionLocation(table, info.encodedName(), info.startKey(), info.endKey(), serverName, true));
        }
        ParamWriter w = new ParamWriter();
        RegionLocationCodec.write(w, locations);
        return Reply.of(w);
    }

    /** CLUSTER_STATUS for this server alone (the master answers for the whole cluster). */
    private Reply clusterStatus(OnlineRegions r) {
        int regionCount = r.stats().regionCount();
        ClusterStatusJson.ServerLoad self = new ClusterStatusJson.ServerLoad(serverName, true, startMillis, 0,
            regionCount, requests.sum(), infoAddress);
        return Reply.of(new ParamWriter().writeString(ClusterStatusJson.of(masters, List.of(self), r.tables().size(),
            regionCount)));
    }

    private Reply status(OnlineRegions r) throws IOException {
        List<String> tables = r.tables();
        int regionCount = 0;
        for (String t : new ArrayList<>(tables)) {
            try {
                List<RegionInfo> list = r.regions(t);
                regionCount += list.size();
            } catch (IOException e) {
                // dropped meanwhile
            }
        }
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        ServerStatus s = new ServerStatus(serverName, rpcServerName, System.currentTimeMillis() - startMillis,
            tables.size(), regionCount, handlers, heap.getUsed(), heap.getMax());
        ParamWriter w = new ParamWriter();
        s.write(w);
        return Reply.of(w);
    }
}
