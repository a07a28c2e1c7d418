package org.heaplab.client;

import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * A cluster connection (HBase's Connection): it finds regions through LOCATE (at the master of
 * hbase.masters, or at the standalone region server of hbase.regionserver.hostname:port, which
 * answers for itself), caches where each table's regions are, keeps one socket per region server
 * shared by every thread, and retries failed calls with HBase's backoff. Every {@link Table} and
 * {@link Admin} made from it shares all of that.
 *
 * <p>Heavy to open (a socket per server, a thread pool for parallel batches), cheap to share: as in
 * HBase, open one per process (PE's --oneCon=true) or one per thread (PE's default).
 *
 * <p>Thread safety: fully thread safe. Closing fails every call in flight and ends every retry loop.
 */
public final class Connection implements Closeable {
    public static final String HOSTNAME_KEY = "hbase.regionserver.hostname";
    public static final String PORT_KEY = "hbase.regionserver.port";
    /** HBase 2.3+'s MasterRegistry key: "host:port[,host:port]". Unset: standalone. */
    public static final String MASTERS_KEY = "hbase.masters";
    public static final String RPC_TIMEOUT_KEY = ClientSettings.RPC_TIMEOUT_KEY;
    public static final int DEFAULT_PORT = 16020;
    public static final long DEFAULT_RPC_TIMEOUT_MS = ClientSettings.DEFAULT_RPC_TIMEOUT_MS;

    private static final AtomicInteger POOL_IDS = new AtomicInteger();

    private final ClientSettings settings;
    private final ServerConnections connections;
    private final Locator locator;
    private final ExecutorService batchPool;
    private final RetryingCaller caller;

    private Connection(List<String> locators, boolean viaMaster, ClientSettings settings) {
        this.settings = settings;
        this.connections = new ServerConnections(settings);
        this.locator = new Locator(locators, viaMaster, connections);
        int id = POOL_IDS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        this.batchPool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "heaplab-client-" + id + "-batch-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.caller = new RetryingCaller(settings, locator, connections, batchPool);
    }

    /**
     * Connects to the master of hbase.masters, or when unset to the standalone region server at
     * hbase.regionserver.hostname:hbase.regionserver.port, with the client keys of {@code conf}
     * ({@link ClientSettings}).
     *
     * @throws NoRegionServerException when nothing listens at the locator's address
     * @throws ConfigurationException for a bad key value
     */
    public static Connection open(Configuration conf) throws IOException {
        ClientSettings settings = ClientSettings.fromConf(conf);
        String masters = conf.get(MASTERS_KEY, "").trim();
        if (masters.isEmpty()) {
            return open(List.of(conf.get(HOSTNAME_KEY, "localhost") + ":" + conf.getInt(PORT_KEY, DEFAULT_PORT)), false,
                settings);
        }
        return open(parseMasters(masters), true, settings);
    }

    /** A standalone region server at host:port with the default client keys. */
    public static Connection open(String host, int port) throws IOException {
        return open(host, port, DEFAULT_RPC_TIMEOUT_MS);
    }

    /** A standalone region server at host:port with the default client keys and this hbase.rpc.timeout. */
    public static Connection open(String host, int port, long rpcTimeoutMs) throws IOException {
        return open(host, port, ClientSettings.DEFAULTS.withRpcTimeout(rpcTimeoutMs));
    }

    /** A standalone region server at host:port with {@code settings} (tests: e.g. no retries). */
    public static Connection open(String host, int port, ClientSettings settings) throws IOException {
        return open(List.of(host + ":" + port), false, settings);
    }

    private static Connection open(List<String> locators, boolean viaMaster, ClientSettings settings) throws IOException {
        Connection c = new Connection(locators, viaMaster, settings);
        try {
            c.locator.connection(); // fail now, with a clear message, when nothing listens there
            return c;
        } catch (ServerConnections.ConnectFailedException e) {
            c.close();
            if (e.getCause() instanceof ConnectException) {
                String a = c.locator.address();
                String host = a.substring(0, a.lastIndexOf(':'));
                int port = Integer.parseInt(a.substring(a.lastIndexOf(':') + 1));
                throw viaMaster ? NoRegionServerException.noMaster(String.join(",", locators))
                    : new NoRegionServerException(host, port);
            }
            throw e;
        }
    }

    static List<String> parseMasters(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            String a = part.trim();
            int colon = a.lastIndexOf(':');
            boolean ok = colon > 0 && colon < a.length() - 1;
            if (ok) {
                try {
                    int port = Integer.parseInt(a.substring(colon + 1));
                    ok = port > 0 && port < 65536;
                } catch (NumberFormatException e) {
                    ok = false;
                }
            }
            if (!ok) {
                throw new ConfigurationException(MASTERS_KEY + " must be host:port[,host:port...], got '" + value + "'");
            }
            out.add(a);
        }
        return out;
    }

    public Table getTable(String name) {
        return new Table(this, name);
    }

    public Admin getAdmin() {
        return new Admin(this);
    }

    /** "host:port" of the locator: the master, or the standalone region server. */
    public String address() {
        return locator.address();
    }

    /** True when regions are located through a master (hbase.masters is set). */
    public boolean isDistributed() {
        return locator.viaMaster();
    }

    /** LOCATE calls this connection has sent (each cache miss after an invalidation costs one). */
    public long locateCalls() {
        return locator.locateCalls();
    }

    public ClientSettings settings() {
        return settings;
    }

    RetryingCaller caller() {
        return caller;
    }

    Locator locator() {
        return locator;
    }

    ServerConnections connections() {
        return connections;
    }

    @Override
    public void close() {
        connections.close();
        batchPool.shutdownNow();
    }
}
