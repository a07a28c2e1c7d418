package org.heaplab.ycsb;

import java.io.IOException;
import java.util.List;
import java.util.Properties;
import org.heaplab.client.Connection;
import org.heaplab.core.util.JsonWriter;
import org.heaplab.tools.ServerMetricsWindow;

/**
 * The server side of a YCSB run's measured window ({@link ServerMetricsWindow}) for the report's
 * {@code server_metrics}: the first binding thread to start takes every region server's "before"
 * METRICS while the others wait at the same lock (so no operation runs before it), and the last of the
 * run's threads to finish takes the "after"; the report's shutdown hook takes it if no thread did (a
 * thread that failed to start never finishes).
 *
 * <p>Thread safety: static and synchronized; every YCSB client thread calls in.
 */
final class YcsbServerWindow {
    private static boolean enabled;
    private static String table;
    private static int threads;
    private static Connection connection;
    private static ServerMetricsWindow window;
    private static String failure;
    private static int finished;
    private static boolean ended;

    private YcsbServerWindow() {
    }

    /** With --report, before YCSB starts: the table whose servers are asked, and the run's thread count. */
    static synchronized void enable(String tableName, int threadCount) {
        enabled = true;
        table = tableName;
        threads = threadCount;
    }

    /** A binding thread starts (EngineClient.init): the first one takes the "before" reports. */
    static synchronized void threadStarted(Properties props) {
        if (!enabled || window != null || failure != null) {
            return;
        }
        try {
            connection = EngineConnections.acquire(props);
            window = ServerMetricsWindow.begin(connection.getAdmin(), table);
        } catch (IOException | RuntimeException e) {
            failure = "cannot reach the region servers for their metrics: " + e.getMessage();
        }
    }

    /** A binding thread finished (EngineClient.cleanup): the run's last takes the "after" reports. */
    static synchronized void threadFinished() {
        if (enabled && window != null && !ended && ++finished >= threads) {
            end();
        }
    }

    /** The {@code server_metrics} array (ending the window if no thread did); null without --report. */
    static synchronized List<JsonWriter> finish() {
        if (!enabled) {
            return null;
        }
        if (window == null) {
            return List.of(new JsonWriter().put("server", "").put("error", failure != null ? failure
                : "no YCSB thread started, so no server metrics were taken"));
        }
        if (!ended) {
            end();
        }
        return window.json();
    }

    /** Back to the state before {@link #enable} (tests run several windows in one JVM). */
    static synchronized void reset() {
        enabled = false;
        table = null;
        connection = null;
        window = null;
        failure = null;
        finished = 0;
        ended = false;
    }

    private static void end() {
        ended = true;
        window.end();
        EngineConnections.release(connection);
    }
}
