package org.heaplab.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Locale;

/**
 * The bookkeeping of one operation's attempts: it records each failed attempt (drops the stale
 * locations, gives up at once on what must not be retried), then waits HBase's backoff before the
 * next attempt, or gives up with one line naming the operation, table, server and last cause when
 * hbase.client.retries.number or hbase.client.operation.timeout is used up.
 *
 * <p>Not thread safe: one per operation, used by the operation's calling thread.
 */
final class RetryState {
    private final ClientSettings settings;
    private final Locator locator;
    private final ServerConnections connections;
    private final String operation;
    private final String table;
    private final boolean idempotent;
    private final long startNanos = System.nanoTime();
    private int attempts;
    private IOException lastCause;
    private String lastServer;
    private boolean busy;

    /**
     * @param operation the method name for messages ("PUT", "GET", ...)
     * @param table the table, or null for table management calls
     * @param idempotent false for INCREMENT: retried only when the failed attempt surely did not run
     */
    RetryState(ClientSettings settings, Locator locator, ServerConnections connections, String operation, String table,
               boolean idempotent) {
        this.settings = settings;
        this.locator = locator;
        this.connections = connections;
        this.operation = operation;
        this.table = table;
        this.idempotent = idempotent;
    }

    /**
     * Records a failed call to {@code server} (null when it failed before a server was chosen).
     *
     * @param sent false when the failure came before the call was sent (locating it): it cannot have run
     * @throws IOException {@code e} itself when it must not be retried (a user error, this client
     *     closed), or a {@link RetriesExhaustedException} when a non-idempotent call may have run
     */
    void failed(IOException e, String server, boolean sent) throws IOException {
        Failure f = Failure.of(e);
        if (!f.retryable) {
            throw e;
        }
        String where = server == null ? locator.address() : server;
        if (!idempotent && sent && f.mayHaveRun) {
            throw new RetriesExhaustedException(operation + " on table " + table + " at " + where
                + " failed and is not retried (it may have been applied): " + message(e), table, where, e);
        }
        locator.invalidate(f, table, server);
        lastCause = e;
        lastServer = where;
        busy |= f == Failure.SERVER_BUSY;
    }

    /** Ends an attempt that had failures: waits before the next one, or throws when none is left. */
    void pauseBeforeRetry() throws IOException {
        attempts++;
        long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000;
        if (attempts >= settings.maxAttempts()) {
            throw exhausted("after " + attempts + " attempts in " + seconds(elapsedMs));
        }
        long pause = RetryBackoff.pauseWithJitterMs(busy ? settings.busyPauseMs() : settings.pauseMs(), attempts - 1);
        busy = false;
        if (elapsedMs + pause > settings.operationTimeoutMs()) {
            throw exhausted("after " + attempts + " attempts: the next would pass " + ClientSettings.OPERATION_TIMEOUT_KEY
                + "=" + settings.operationTimeoutMs() + " ms");
        }
        try {
            Thread.sleep(pause);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(operation + " on table " + table + " interrupted while backing off");
        }
        connections.checkOpen();
    }

    /** Attempts made so far. */
    int attempts() {
        return attempts;
    }

    private RetriesExhaustedException exhausted(String how) {
        String what = table == null ? operation : operation + " on table " + table;
        return new RetriesExhaustedException(what + " failed " + how + "; last server " + lastServer + ": " + message(lastCause),
            table, lastServer, lastCause);
    }

    private static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private static String message(IOException e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
