package org.heaplab.server;

import java.io.IOException;
import java.util.List;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;

/**
 * A region server's side of cluster mode (HBase's reportForDuty and regionServerReport): one thread that
 * registers with the master (REGISTER, retried until the master answers, logging the attempts), then sends a
 * HEARTBEAT every interval the master returned (hbase.regionserver.msginterval on the master's side). When the
 * master answers a heartbeat with "unknown" (it restarted, or forgot this start code) the server registers
 * again. A failed call drops the connection and tries the next master of hbase.masters.
 *
 * <p>Thread safety: started and closed by the region server; everything else runs on its own thread.
 */
final class MasterReporter implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MS = 2000;
    private static final long RETRY_PAUSE_MS = 1000;

    private final List<String> masters;
    private final String server;
    private final RegionRpcService service;
    private final String infoAddress;
    private final long callTimeoutMs;
    private final Thread thread;
    private volatile boolean closed;
    private RpcConnection connection;
    private int masterIndex;
    private long intervalMs;

    /**
     * @param server      this server's RPC address "host:port"
     * @param intervalMs  the heartbeat interval until the master names its own (REGISTER's answer)
     */
    MasterReporter(List<String> masters, String server, RegionRpcService service, String infoAddress, long intervalMs) {
        this.masters = masters;
        this.server = server;
        this.service = service;
        this.infoAddress = infoAddress == null ? "" : infoAddress;
        this.intervalMs = intervalMs;
        this.callTimeoutMs = Math.max(10_000, 3 * intervalMs);
        this.thread = new Thread(this::run, "master-reporter");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        boolean registered = false;
        int failures = 0;
        while (!closed) {
            try {
                if (!registered) {
                    register();
                    registered = true;
                    failures = 0;
                } else if (!heartbeat()) {
                    ServerLog.warn("master at " + master() + " does not know " + server + " (start code "
                        + service.startCode() + "; the master restarted or marked it gone): registering again");
                    registered = false;
                    continue;
                } else {
                    failures = 0;
                }
                pause(intervalMs);
            } catch (IOException e) {
                if (closed) {
                    break;
                }
                failures++;
                if (failures == 1 || failures % 10 == 0) { // progress without flooding the log
                    ServerLog.warn((registered ? "heartbeat to" : "registration with") + " master at " + master()
                        + " failed (attempt " + failures + "): " + e.getMessage() + "; retrying");
                }
                dropConnection();
                masterIndex = (masterIndex + 1) % masters.size();
                pause(registered ? intervalMs : RETRY_PAUSE_MS);
            }
        }
        dropConnection();
    }

    /** REGISTER: string server, long startCode, string infoAddress -> long heartbeatIntervalMs. */
    private void register() throws IOException {
        byte[] params = new ParamWriter().writeString(server).writeLong(service.startCode()).writeString(infoAddress)
            .toByteArray();
        long interval = connection().call(Method.REGISTER, params, List.of()).paramReader().readLong();
        if (interval > 0) {
            intervalMs = interval;
        }
        ServerLog.info("registered with the master at " + master() + " as " + server + " (start code "
            + service.startCode() + "); heartbeat every " + intervalMs + " ms");
    }

    /** HEARTBEAT: string server, long startCode, int regionCount, long requestCount -> boolean known. */
    private boolean heartbeat() throws IOException {
        byte[] params = new ParamWriter().writeString(server).writeLong(service.startCode())
            .writeInt(service.regionCount()).writeLong(service.requestCount()).toByteArray();
        return connection().call(Method.HEARTBEAT, params, List.of()).paramReader().readBoolean();
    }

    private RpcConnection connection() throws IOException {
        if (connection == null || !connection.isOpen()) {
            String m = master();
            int colon = m.lastIndexOf(':');
            connection = RpcConnection.open(m.substring(0, colon), Integer.parseInt(m.substring(colon + 1)),
                CONNECT_TIMEOUT_MS, callTimeoutMs);
        }
        return connection;
    }

    private String master() {
        return masters.get(masterIndex);
    }

    private void dropConnection() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    private void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            // closed: the loop ends
        }
    }

    /** Stops the thread (no more heartbeats: the master will mark this server down after its timeout). */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
