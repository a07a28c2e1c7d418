package org.heaplab.server;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.util.JsonWriter;

/**
 * CLUSTER_STATUS's answer (engine/docs/cluster.md), written by the master for every region server it knows
 * and by a region server for itself:
 * <pre>
 * {"master": "host:port", "servers": [{"server": "h:p", "online": true, "start_code": n,
 *   "last_heartbeat_ms_ago": n, "regions": n, "requests": n, "info": "h:p"}], "tables": n, "regions": n}
 * </pre>
 * A standalone region server writes "master": null (there is none).
 */
public final class ClusterStatusJson {
    private ClusterStatusJson() {
    }

    /** One region server as the master sees it (info: its HTTP metrics endpoint, or ""). */
    public record ServerLoad(String server, boolean online, long startCode, long lastHeartbeatMsAgo, int regions,
                             long requests, String info) {
    }

    public static String of(String master, List<ServerLoad> servers, int tables, int regions) {
        List<JsonWriter> list = new ArrayList<>();
        for (ServerLoad s : servers) {
            list.add(new JsonWriter().put("server", s.server()).put("online", s.online()).put("start_code", s.startCode())
                .put("last_heartbeat_ms_ago", s.lastHeartbeatMsAgo()).put("regions", s.regions())
                .put("requests", s.requests()).put("info", s.info()));
        }
        return new JsonWriter().put("master", master).put("servers", list).put("tables", tables)
            .put("regions", regions).toString();
    }
}
