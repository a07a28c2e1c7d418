package org.heaplab.client;

import java.io.IOException;

/**
 * An operation failed after its retries (or was not retried, for an INCREMENT that may have been
 * applied). The message is one line naming the operation, the table, the last server tried and the
 * last cause; {@link #getCause()} is that cause.
 */
public final class RetriesExhaustedException extends IOException {
    private final String table;
    private final String server;

    RetriesExhaustedException(String message, String table, String server, IOException cause) {
        super(message, cause);
        this.table = table;
        this.server = server;
    }

    /** The table, or null for a table management call. */
    public String table() {
        return table;
    }

    /** "host:port" of the last server tried (the locator when the failure was locating). */
    public String server() {
        return server;
    }
}
