package org.heaplab.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.RegionLocation;

/**
 * Runs a client operation with HBase's retry discipline: locate (cache or LOCATE), call, and on a
 * retryable failure drop the stale locations, back off and try again (see {@link RetryState}).
 * Three shapes: one row ({@link #callRegion}), table management at the locator ({@link #callMaster}),
 * and a batch split per region server and sent in parallel ({@link #callBatch}), where only the
 * failed servers' parts are located again and resent.
 *
 * <p>Thread safety: thread safe (state lives in each call's {@link RetryState}).
 */
final class RetryingCaller {
    /** One attempt against the region holding the row. */
    interface RegionCall<T> {
        T call(RpcConnection rpc, RegionLocation region) throws IOException;
    }

    /** One attempt at the locator (master or standalone region server). */
    interface MasterCall<T> {
        T call(RpcConnection rpc) throws IOException;
    }

    /** One attempt sending the items at {@code items} (indexes into the request) to one server. */
    interface GroupCall {
        void call(RpcConnection rpc, int[] items) throws IOException;
    }

    private final ClientSettings settings;
    private final Locator locator;
    private final ServerConnections connections;
    private final ExecutorService batchPool;

    RetryingCaller(ClientSettings settings, Locator locator, ServerConnections connections, ExecutorService batchPool) {
        this.settings = settings;
        this.locator = locator;
        this.connections = connections;
        this.batchPool = batchPool;
    }

    /** {@code call} against the region of {@code row}, retried as its failures allow. */
    <T> T callRegion(String operation, String table, byte[] row, boolean idempotent, RegionCall<T> call) throws IOException {
        RetryState state = new RetryState(settings, locator, connections, operation, table, idempotent);
        while (true) {
            String server = null;
            boolean sent = false;
            try {
                RegionLocation region = locator.locate(table, row);
                server = region.server();
                if (!region.serverOnline()) {
                    throw new Failure.ServerOfflineException(server);
                }
                RpcConnection rpc = connections.get(server);
                sent = true;
                return call.call(rpc, region);
            } catch (IOException e) {
                state.failed(e, server, sent);
            }
            state.pauseBeforeRetry();
        }
    }

    /** {@code call} at the locator; {@code idempotent} false for CREATE_TABLE and DROP_TABLE. */
    <T> T callMaster(String operation, String table, boolean idempotent, MasterCall<T> call) throws IOException {
        RetryState state = new RetryState(settings, locator, connections, operation, table, idempotent);
        while (true) {
            try {
                return call.call(locator.connection());
            } catch (IOException e) {
                state.failed(e, locator.address(), true);
            }
            state.pauseBeforeRetry();
        }
    }

    /** {@code call} at the region server {@code server} ("host:port"), e.g. LIST_REGIONS. */
    <T> T callServer(String operation, String table, String server, MasterCall<T> call) throws IOException {
        RetryState state = new RetryState(settings, locator, connections, operation, table, true);
        while (true) {
            try {
                return call.call(connections.get(server));
            } catch (IOException e) {
                state.failed(e, server, true);
            }
            state.pauseBeforeRetry();
        }
    }

    /**
     * Sends the items with rows {@code rows} grouped per region server, the groups in parallel (the
     * first on the calling thread), until every group succeeded. Batches are idempotent (puts,
     * deletes, gets): a group that failed is resent whole.
     */
    void callBatch(String operation, String table, byte[][] rows, GroupCall call) throws IOException {
        RetryState state = new RetryState(settings, locator, connections, operation, table, true);
        int[] pending = new int[rows.length];
        for (int i = 0; i < pending.length; i++) {
            pending[i] = i;
        }
        while (pending.length > 0) {
            List<ServerBatches.Group> groups;
            try {
                groups = ServerBatches.group(pending, rows, row -> locator.locate(table, row));
            } catch (IOException e) {
                state.failed(e, null, false);
                state.pauseBeforeRetry();
                continue;
            }
            IOException[] failures = sendAll(groups, call);
            List<Integer> failed = new ArrayList<>();
            for (int g = 0; g < groups.size(); g++) {
                if (failures[g] != null) {
                    state.failed(failures[g], groups.get(g).server(), true);
                    for (int i : groups.get(g).items()) {
                        failed.add(i);
                    }
                }
            }
            if (failed.isEmpty()) {
                return;
            }
            state.pauseBeforeRetry();
            pending = failed.stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** Sends every group; the failure of each (null when it succeeded). */
    private IOException[] sendAll(List<ServerBatches.Group> groups, GroupCall call) throws IOException {
        IOException[] failures = new IOException[groups.size()];
        List<Future<IOException>> others = new ArrayList<>();
        for (int g = 1; g < groups.size(); g++) {
            ServerBatches.Group group = groups.get(g);
            others.add(batchPool.submit(() -> send(group, call)));
        }
        failures[0] = send(groups.get(0), call);
        for (int g = 1; g < groups.size(); g++) {
            try {
                failures[g] = others.get(g - 1).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                others.forEach(f -> f.cancel(true));
                throw new InterruptedIOException("interrupted while waiting for a batch");
            } catch (ExecutionException e) { // send() catches IOException: this is a bug, not a retryable failure
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw new IllegalStateException(e.getCause());
            }
        }
        return failures;
    }

    private IOException send(ServerBatches.Group group, GroupCall call) {
        try {
            if (!group.online()) {
                throw new Failure.ServerOfflineException(group.server());
            }
            call.call(connections.get(group.server()), group.items());
            return null;
        } catch (IOException e) {
            return e;
        }
    }
}
