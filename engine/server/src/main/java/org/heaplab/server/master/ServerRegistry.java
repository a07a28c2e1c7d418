package org.heaplab.server.master;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.heaplab.server.ClusterStatusJson.ServerLoad;
import org.heaplab.server.ServerLog;

/**
 * The region servers the master knows (HBase's ServerManager): each one's start code, its last heartbeat
 * and its load. A server is online from its REGISTER until no heartbeat came for the timeout
 * (heaplab.master.regionserver.timeout); then it is marked down and LOCATE answers its regions with
 * serverOnline=false. It is online again when it registers again (a restart: a new start code) or when its
 * heartbeats resume (a long pause: the same start code). Nothing is reassigned: its regions wait for it.
 * Kept in memory only: after a master restart every region server registers again (its heartbeat is answered
 * "unknown").
 *
 * <p>Thread safety: every method is synchronized.
 */
final class ServerRegistry {
    private final long timeoutMs;
    private final LongSupplier clockMs;
    private final Map<String, Entry> servers = new TreeMap<>();

    private static final class Entry {
        long startCode;
        String info;
        long lastHeartbeatMs;
        int regions;
        long requests;
        boolean online;
    }

    ServerRegistry(long timeoutMs, LongSupplier clockMs) {
        this.timeoutMs = timeoutMs;
        this.clockMs = clockMs;
    }

    synchronized void register(String server, long startCode, String info) {
        Entry e = servers.get(server);
        if (e == null) {
            e = new Entry();
            servers.put(server, e);
            ServerLog.info("region server " + server + " registered (start code " + startCode + ")");
        } else if (e.startCode != startCode) {
            ServerLog.info("region server " + server + " registered again with a new start code " + startCode
                + " (was " + e.startCode + ": it restarted)" + (e.online ? "" : "; online again"));
        } else {
            ServerLog.info("region server " + server + " registered again (start code " + startCode + ")");
        }
        e.startCode = startCode;
        e.info = info;
        e.lastHeartbeatMs = clockMs.getAsLong();
        e.online = true;
    }

    /** @return false when this server and start code are unknown (the region server registers again) */
    synchronized boolean heartbeat(String server, long startCode, int regions, long requests) {
        Entry e = servers.get(server);
        if (e == null || e.startCode != startCode) {
            return false;
        }
        e.lastHeartbeatMs = clockMs.getAsLong();
        e.regions = regions;
        e.requests = requests;
        if (!e.online) {
            e.online = true;
            ServerLog.info("region server " + server + " is heartbeating again: online");
        }
        return true;
    }

    /** Marks down every online server whose last heartbeat is older than the timeout. */
    synchronized void expire() {
        long now = clockMs.getAsLong();
        for (Map.Entry<String, Entry> me : servers.entrySet()) {
            Entry e = me.getValue();
            if (e.online && now - e.lastHeartbeatMs > timeoutMs) {
                e.online = false;
                ServerLog.warn("region server " + me.getKey() + " marked down: no heartbeat for " + (now - e.lastHeartbeatMs)
                    + " ms (heaplab.master.regionserver.timeout=" + timeoutMs + "); its regions are unavailable until "
                    + "it comes back");
            }
        }
    }

    synchronized boolean isOnline(String server) {
        Entry e = servers.get(server);
        return e != null && e.online;
    }

    /** Online servers, sorted by name. */
    synchronized List<String> onlineServers() {
        List<String> out = new ArrayList<>();
        servers.forEach((name, e) -> {
            if (e.online) {
                out.add(name);
            }
        });
        return out;
    }

    /** Every known server (online or down), sorted by name. */
    synchronized List<ServerLoad> loads() {
        long now = clockMs.getAsLong();
        List<ServerLoad> out = new ArrayList<>();
        servers.forEach((name, e) -> out.add(new ServerLoad(name, e.online, e.startCode, now - e.lastHeartbeatMs,
            e.regions, e.requests, e.info)));
        return out;
    }
}
