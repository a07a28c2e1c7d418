package org.heaplab.ycsb;

import java.io.IOException;
import java.util.Map;
import java.util.Properties;
import org.heaplab.client.Connection;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.EngineEnv;

/**
 * The engine {@link Connection}s of one YCSB JVM. By default every YCSB client thread (one
 * {@link EngineClient} each, plus the {@link IncrementWorkload}'s per-thread state) shares ONE Connection,
 * as YCSB's HBase binding shares one HBase Connection per JVM: a Connection multiplexes the calls of
 * all threads over one socket per region server, and one location cache serves them all.
 * {@code -p heaplab.ycsb.connection=thread} gives each thread its own (like {@code pe --oneCon=false}).
 *
 * <p>The shared Connection is reference counted: the last {@link #release} closes it.
 */
final class EngineConnections {
    static final String MODE_KEY = "heaplab.ycsb.connection";

    private static Connection shared;
    private static int users;

    private EngineConnections() {
    }

    /** engine-site.xml (ENGINE_CONF_DIR), then every {@code hbase.*} key given to YCSB ({@code -p hbase.client.retries.number=3}). */
    static Configuration configuration(Properties props) {
        Configuration conf = EngineEnv.fromSystem().loadConfiguration();
        for (Map.Entry<Object, Object> e : props.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (key.startsWith("hbase.")) {
                conf.set(key, String.valueOf(e.getValue()));
            }
        }
        return conf;
    }

    static boolean perThread(Properties props) {
        String mode = props.getProperty(MODE_KEY, "shared");
        return switch (mode) {
            case "shared" -> false;
            case "thread" -> true;
            default -> throw new IllegalArgumentException(MODE_KEY + " must be shared or thread, got '" + mode + "'");
        };
    }

    /** A Connection for one thread: the shared one (opened by the first caller) or a new one. */
    static Connection acquire(Properties props) throws IOException {
        if (perThread(props)) {
            return Connection.open(configuration(props));
        }
        synchronized (EngineConnections.class) {
            if (shared == null) {
                shared = Connection.open(configuration(props));
            }
            users++;
            return shared;
        }
    }

    static void release(Connection c) {
        if (c == null) {
            return;
        }
        synchronized (EngineConnections.class) {
            if (c == shared) {
                if (--users > 0) {
                    return;
                }
                shared = null;
            }
        }
        c.close();
    }
}
