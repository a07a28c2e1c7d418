package org.heaplab.client;

import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.Method;
import org.heaplab.rpc.Response;
import org.heaplab.rpc.RpcConnection;

/**
 * A connection to one region server: one socket that every {@link Table} and {@link Admin} made
 * from it shares. Calls from many threads are multiplexed by call id.
 *
 * <p>Thread safety: fully thread safe; tables and admins are cheap views and may be shared too.
 * Closing fails every call in flight.
 */
public final class Connection implements Closeable {
    public static final String HOSTNAME_KEY = "hbase.regionserver.hostname";
    public static final String PORT_KEY = "hbase.regionserver.port";
    public static final String RPC_TIMEOUT_KEY = "hbase.rpc.timeout";
    public static final int DEFAULT_PORT = 16020;
    /** Generous, because flush and major compaction answer only when done. */
    public static final long DEFAULT_RPC_TIMEOUT_MS = 600_000;

    private final RpcConnection rpc;

    private Connection(RpcConnection rpc) {
        this.rpc = rpc;
    }

    /** Connects to hbase.regionserver.hostname:hbase.regionserver.port of {@code conf}. */
    public static Connection open(Configuration conf) throws IOException {
        return open(conf.get(HOSTNAME_KEY, "localhost"), conf.getInt(PORT_KEY, DEFAULT_PORT),
            conf.getLong(RPC_TIMEOUT_KEY, DEFAULT_RPC_TIMEOUT_MS));
    }

    public static Connection open(String host, int port) throws IOException {
        return open(host, port, DEFAULT_RPC_TIMEOUT_MS);
    }

    /**
     * @throws NoRegionServerException when nothing listens at host:port
     */
    public static Connection open(String host, int port, long rpcTimeoutMs) throws IOException {
        try {
            return new Connection(RpcConnection.open(host, port, 10_000, rpcTimeoutMs));
        } catch (ConnectException e) {
            throw new NoRegionServerException(host, port);
        }
    }

    public Table getTable(String name) {
        return new Table(this, name);
    }

    public Admin getAdmin() {
        return new Admin(this);
    }

    public String address() {
        return rpc.address();
    }

    Response call(Method method, byte[] params, List<KeyValue> cells) throws IOException {
        return rpc.call(method, params, cells);
    }

    @Override
    public void close() {
        rpc.close();
    }
}
