package org.heaplab.server;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The configuration keys of the master and of a region server's cluster mode (HBase's names where HBase has
 * the concept; engine/docs/cluster.md lists them with their defaults). The HTTP endpoints' ports
 * (hbase.master.info.port, hbase.regionserver.info.port) are {@link InfoServer}'s.
 */
public final class ClusterKeys {
    /** false (default): one standalone region server; true: region servers register with the master. */
    public static final String DISTRIBUTED = "hbase.cluster.distributed";
    /** "host:port[,host:port]" (HBase 2.3+'s MasterRegistry key): where region servers and clients find the master. */
    public static final String MASTERS = "hbase.masters";
    public static final String MASTER_HOSTNAME = "hbase.master.hostname";
    public static final String MASTER_PORT = "hbase.master.port";
    public static final int DEFAULT_MASTER_PORT = 16000;
    /** The master's RPC handler threads (HBase's key and default). */
    public static final String MASTER_HANDLER_COUNT = "hbase.master.handler.count";
    public static final int DEFAULT_MASTER_HANDLER_COUNT = 25;
    /** A region server's heartbeat interval, ms (HBase's region server report interval). */
    public static final String MSG_INTERVAL = "hbase.regionserver.msginterval";
    public static final long DEFAULT_MSG_INTERVAL_MS = 3000;
    /**
     * No heartbeat for this long (ms) marks a region server down. HBase uses the ZooKeeper session timeout,
     * which we do not have.
     */
    public static final String REGIONSERVER_TIMEOUT = "heaplab.master.regionserver.timeout";
    public static final long DEFAULT_REGIONSERVER_TIMEOUT_MS = 10_000;

    private ClusterKeys() {
    }

    /**
     * hbase.masters as "host:port" strings.
     *
     * @throws ConfigurationException when it is unset or an entry is not host:port
     */
    public static List<String> masters(Configuration conf) {
        String v = conf.get(MASTERS);
        if (v == null || v.isBlank()) {
            throw new ConfigurationException(MASTERS + " is not set: with " + DISTRIBUTED
                + "=true a region server needs the master's host:port");
        }
        List<String> out = new ArrayList<>();
        for (String part : v.split(",")) {
            String s = part.trim();
            int colon = s.lastIndexOf(':');
            boolean ok = colon > 0 && colon < s.length() - 1;
            if (ok) {
                try {
                    int port = Integer.parseInt(s.substring(colon + 1));
                    ok = port > 0 && port < 65536;
                } catch (NumberFormatException e) {
                    ok = false;
                }
            }
            if (!ok) {
                throw new ConfigurationException(MASTERS + " must be host:port[,host:port], got '" + v + "'");
            }
            out.add(s);
        }
        return out;
    }

    /** A positive duration in ms, or one line naming the key. */
    public static long positiveMs(Configuration conf, String key, long defaultMs) {
        long v = conf.getLong(key, defaultMs);
        if (v <= 0) {
            throw new ConfigurationException(key + " must be a positive number of milliseconds, got " + v);
        }
        return v;
    }
}
