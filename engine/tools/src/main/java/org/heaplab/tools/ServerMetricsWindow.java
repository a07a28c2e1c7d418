package org.heaplab.tools;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.client.Admin;
import org.heaplab.core.util.JsonWriter;

/**
 * The server side of a client's measured window: the METRICS report (no --gc) of every region server
 * holding the table, right before the first measured operation ({@link #begin}) and right after the
 * last ({@link #end}), for the summary's {@code server_metrics} field (docs/contracts.md section 3):
 *
 * <pre>
 *   [{"server": "host:port", "before": {...METRICS...}, "after": {...METRICS...}}, ...]
 *   a failed call: that server's entry says {"server": ..., "error": "..."} (with "before" if it was taken)
 *   the table's servers unknown: [{"server": "", "error": "..."}]
 * </pre>
 *
 * Each call is one attempt (never retried): a failing server is recorded, never fails or stalls the run.
 * Deltas after - before give the mechanism per operation: alloc.by_group, copies, rpc_calls, GC counts.
 *
 * <p>Thread safety: begin, then end, from one thread.
 */
public final class ServerMetricsWindow {
    private static final class Entry {
        final String server;
        String before;
        String after;
        String error;

        Entry(String server) {
            this.server = server;
        }
    }

    private final Admin admin;
    private final List<Entry> entries = new ArrayList<>();

    private ServerMetricsWindow(Admin admin) {
        this.admin = admin;
    }

    /** Takes every server's "before" report now. */
    public static ServerMetricsWindow begin(Admin admin, String table) {
        ServerMetricsWindow w = new ServerMetricsWindow(admin);
        List<String> servers;
        try {
            servers = admin.servers(table);
        } catch (IOException | RuntimeException e) {
            Entry none = new Entry("");
            none.error = "cannot list the region servers of " + table + ": " + message(e);
            w.entries.add(none);
            return w;
        }
        for (String s : servers) {
            Entry e = new Entry(s);
            try {
                e.before = admin.metricsOnce(s);
            } catch (IOException | RuntimeException ex) {
                e.error = "METRICS before the run failed: " + message(ex);
            }
            w.entries.add(e);
        }
        return w;
    }

    /** Takes the "after" report of every server whose "before" succeeded. Call once. */
    public void end() {
        for (Entry e : entries) {
            if (e.error != null) {
                continue;
            }
            try {
                e.after = admin.metricsOnce(e.server);
            } catch (IOException | RuntimeException ex) {
                e.error = "METRICS after the run failed: " + message(ex);
            }
        }
    }

    /** The {@code server_metrics} array. */
    public List<JsonWriter> json() {
        List<JsonWriter> out = new ArrayList<>();
        for (Entry e : entries) {
            JsonWriter w = new JsonWriter().put("server", e.server);
            String error = e.error;
            try {
                if (e.before != null) {
                    w.putRaw("before", e.before);
                }
                if (e.after != null) {
                    w.putRaw("after", e.after);
                }
            } catch (IllegalArgumentException bad) { // a server of another version: keep the file valid JSON
                w = new JsonWriter().put("server", e.server);
                error = "unreadable METRICS report: " + bad.getMessage();
            }
            if (error != null) {
                w.put("error", error);
            }
            out.add(w);
        }
        return out;
    }

    private static String message(Throwable t) {
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
