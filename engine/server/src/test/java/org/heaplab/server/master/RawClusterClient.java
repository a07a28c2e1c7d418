package org.heaplab.server.master;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.rpc.protocol.RegionLocationCodec;
import org.heaplab.rpc.protocol.Response;

/**
 * A minimal locating client over raw RPC connections, for the cluster tests (the client module's Connection
 * is tested on its own): LOCATE at the master, PUT / GET at the server holding the row. No retries: a caller
 * that wants them catches the IOException. Not thread safe: one per thread.
 */
final class RawClusterClient implements AutoCloseable {
    static final byte[] F = "f".getBytes(StandardCharsets.US_ASCII);
    static final byte[] Q = "q".getBytes(StandardCharsets.US_ASCII);

    private final String master;
    private final Map<String, RpcConnection> connections = new HashMap<>();
    private List<RegionLocation> locations;
    private final String table;

    RawClusterClient(String master, String table) {
        this.master = master;
        this.table = table;
    }

    RpcConnection connection(String server) throws IOException {
        RpcConnection c = connections.get(server);
        if (c == null || !c.isOpen()) {
            int colon = server.lastIndexOf(':');
            c = RpcConnection.open(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)), 2000, 30_000);
            connections.put(server, c);
        }
        return c;
    }

    Response master(Method method, byte[] params) throws IOException {
        return connection(master).call(method, params, List.of());
    }

    List<RegionLocation> locate() throws IOException {
        locations = RegionLocationCodec.read(master(Method.LOCATE, new ParamWriter().writeString(table).toByteArray())
            .paramReader());
        return locations;
    }

    RegionLocation locate(byte[] row) throws IOException {
        if (locations == null) {
            locate();
        }
        for (RegionLocation l : locations) {
            if (l.contains(row)) {
                return l;
            }
        }
        throw new IllegalStateException("no region holds the row");
    }

    /** One put at the row's server; a failure (also NOT_SERVING_REGION) drops the cached locations. */
    void put(String row, String value) throws IOException {
        byte[] r = row.getBytes(StandardCharsets.UTF_8);
        RegionLocation l = locate(r);
        try {
            connection(l.server()).call(Method.PUT, new ParamWriter().writeString(table).writeInt(0).toByteArray(),
                List.of(KeyValue.create(r, F, Q, KeyValue.LATEST_TIMESTAMP, KeyValue.Type.PUT,
                    value.getBytes(StandardCharsets.UTF_8))));
        } catch (IOException e) {
            locations = null;
            throw e;
        }
    }

    /** The row's value, or null. */
    String get(String row) throws IOException {
        byte[] r = row.getBytes(StandardCharsets.UTF_8);
        RegionLocation l = locate(r);
        try {
            Response resp = connection(l.server()).call(Method.GET,
                new ParamWriter().writeString(table).writeBytes(r).toByteArray(), List.of());
            return resp.cells().isEmpty() ? null : new String(resp.cells().get(0).value(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            locations = null;
            throw e;
        }
    }

    static boolean notServing(IOException e) {
        return e instanceof RemoteException re && re.code() == ErrorCode.NOT_SERVING_REGION;
    }

    @Override
    public void close() {
        connections.values().forEach(RpcConnection::close);
    }
}
