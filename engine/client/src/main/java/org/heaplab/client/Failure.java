package org.heaplab.client;

import java.io.IOException;
import org.heaplab.rpc.client.RemoteException;

/**
 * What a failed attempt means for the next one: whether to retry at all, whether the call may have
 * run on the server (which decides for a non-idempotent INCREMENT), and which cached locations are
 * stale. HBase retries every IOException except its DoNotRetryIOException family; we do the same
 * with the error codes: a bad argument, a missing table, a malformed request are never retried.
 */
enum Failure {
    /** NOT_SERVING_REGION: the table's regions moved; nothing was applied. Relocate the table. */
    NOT_SERVING_REGION(true, false),
    /** SERVER_BUSY: the server's call queue was full; the call did not run. Back off (longer). */
    SERVER_BUSY(true, false),
    /** No socket could be opened, LOCATE said the server is offline, or it is stopping: nothing ran. */
    SERVER_UNREACHABLE(true, false),
    /** The socket failed or the call timed out after the request was sent: it may have run. */
    CONNECTION_LOST(true, true),
    /** The server answered IO_ERROR (a storage failure, or still replaying its WAL): it may have run. */
    SERVER_IO_ERROR(true, true),
    /**
     * Anything else (TABLE_NOT_FOUND, ILLEGAL_ARGUMENT, NO_SUCH_COLUMN_FAMILY, MALFORMED_REQUEST, ..., or this
     * client closed): the caller's mistake or a bug, which retrying cannot fix.
     */
    DO_NOT_RETRY(false, true);

    final boolean retryable;
    final boolean mayHaveRun;

    Failure(boolean retryable, boolean mayHaveRun) {
        this.retryable = retryable;
        this.mayHaveRun = mayHaveRun;
    }

    static Failure of(IOException e) {
        if (e instanceof ServerConnections.ClientClosedException) {
            return DO_NOT_RETRY;
        }
        if (e instanceof Locator.NoRegionException) {
            return NOT_SERVING_REGION;
        }
        if (e instanceof ServerConnections.ConnectFailedException || e instanceof ServerOfflineException) {
            return SERVER_UNREACHABLE;
        }
        if (e instanceof RemoteException r) {
            return switch (r.code()) {
                case NOT_SERVING_REGION -> NOT_SERVING_REGION;
                case SERVER_BUSY -> SERVER_BUSY;
                case SERVER_STOPPING -> SERVER_UNREACHABLE;
                case IO_ERROR -> SERVER_IO_ERROR;
                default -> DO_NOT_RETRY;
            };
        }
        return CONNECTION_LOST; // RpcConnection: closed by the server, reset, timed out
    }

    /** LOCATE said the region's server is down (it stopped heartbeating): the call is not even sent. */
    static final class ServerOfflineException extends IOException {
        ServerOfflineException(String server) {
            super("the master reports region server " + server + " offline");
        }
    }
}
