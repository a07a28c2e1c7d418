package org.heaplab.core.conf;

/**
 * The client's configuration keys (HBase's names), read by the client's ClientSettings; here in core, like
 * {@link StorageKeys}, so that the servers know them too: a region server's engine-site.xml is the clients'
 * as well, and the servers warn about keys no part of the engine reads (the server's KnownKeys).
 */
public final class ClientKeys {
    public static final String RETRIES = "hbase.client.retries.number";
    public static final String PAUSE = "hbase.client.pause";
    public static final String BUSY_PAUSE = "hbase.client.pause.server.overloaded";
    public static final String OPERATION_TIMEOUT = "hbase.client.operation.timeout";
    public static final String RPC_TIMEOUT = "hbase.rpc.timeout";
    public static final String CONNECT_TIMEOUT = "hbase.ipc.client.socket.timeout.connect";

    private ClientKeys() {
    }
}
