package org.heaplab.client;

import org.heaplab.core.conf.ClientKeys;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The client's keys ({@link ClientKeys}), read once when a {@link Connection} opens (HBase's names and defaults).
 *
 * @param retries hbase.client.retries.number: retries after the first attempt (an operation makes at
 *     most retries + 1 attempts, as HBase 2)
 * @param pauseMs hbase.client.pause: the base of the backoff, multiplied by {@link RetryBackoff#RETRY_BACKOFF}
 * @param busyPauseMs hbase.client.pause.server.overloaded: the base after SERVER_BUSY (default: the pause)
 * @param operationTimeoutMs hbase.client.operation.timeout: one operation with all its retries and pauses
 * @param rpcTimeoutMs hbase.rpc.timeout: one call waiting for its answer
 * @param connectTimeoutMs hbase.ipc.client.socket.timeout.connect: opening a socket to a server
 */
public record ClientSettings(int retries, long pauseMs, long busyPauseMs, long operationTimeoutMs, long rpcTimeoutMs,
                             int connectTimeoutMs) {
    public static final String RETRIES_KEY = ClientKeys.RETRIES;
    public static final String PAUSE_KEY = ClientKeys.PAUSE;
    public static final String BUSY_PAUSE_KEY = ClientKeys.BUSY_PAUSE;
    public static final String OPERATION_TIMEOUT_KEY = ClientKeys.OPERATION_TIMEOUT;
    public static final String RPC_TIMEOUT_KEY = ClientKeys.RPC_TIMEOUT;
    public static final String CONNECT_TIMEOUT_KEY = ClientKeys.CONNECT_TIMEOUT;

    public static final int DEFAULT_RETRIES = 15;
    public static final long DEFAULT_PAUSE_MS = 100;
    public static final long DEFAULT_OPERATION_TIMEOUT_MS = 1_200_000;
    /** Generous (HBase: 60 s), because flush and major compaction answer only when done. */
    public static final long DEFAULT_RPC_TIMEOUT_MS = 600_000;
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

    public static final ClientSettings DEFAULTS = new ClientSettings(DEFAULT_RETRIES, DEFAULT_PAUSE_MS, DEFAULT_PAUSE_MS,
        DEFAULT_OPERATION_TIMEOUT_MS, DEFAULT_RPC_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS);

    /** Reads the keys; a bad value fails with one line naming the key. */
    public static ClientSettings fromConf(Configuration conf) {
        int retries = conf.getInt(RETRIES_KEY, DEFAULT_RETRIES);
        if (retries < 0) {
            throw new ConfigurationException(RETRIES_KEY + " must be 0 or more, got " + retries);
        }
        long pause = positive(conf, PAUSE_KEY, DEFAULT_PAUSE_MS);
        return new ClientSettings(retries, pause, positive(conf, BUSY_PAUSE_KEY, pause),
            positive(conf, OPERATION_TIMEOUT_KEY, DEFAULT_OPERATION_TIMEOUT_MS),
            positive(conf, RPC_TIMEOUT_KEY, DEFAULT_RPC_TIMEOUT_MS),
            (int) Math.min(Integer.MAX_VALUE, positive(conf, CONNECT_TIMEOUT_KEY, DEFAULT_CONNECT_TIMEOUT_MS)));
    }

    /** These settings with another per-call timeout (the old {@code Connection.open(host, port, rpcTimeoutMs)}). */
    public ClientSettings withRpcTimeout(long ms) {
        return new ClientSettings(retries, pauseMs, busyPauseMs, operationTimeoutMs, ms, connectTimeoutMs);
    }

    /** These settings with another hbase.client.retries.number (0: one attempt, fail at the first error). */
    public ClientSettings withRetries(int n) {
        return new ClientSettings(n, pauseMs, busyPauseMs, operationTimeoutMs, rpcTimeoutMs, connectTimeoutMs);
    }

    /** At most this many attempts per operation. */
    public int maxAttempts() {
        return retries + 1;
    }

    private static long positive(Configuration conf, String key, long defaultValue) {
        long v = conf.getLong(key, defaultValue);
        if (v <= 0) {
            throw new ConfigurationException(key + " must be a positive number of milliseconds, got " + v);
        }
        return v;
    }
}
