package org.heaplab.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.util.JsonWriter;

/**
 * A server's HTTP metrics endpoint (HBase's "info server" on port 16030 / 16010), on the JDK's built-in
 * {@code com.sun.net.httpserver}: {@code GET /metrics} answers the JSON the supplier builds (for a region
 * server {@link ServerMetrics#endpointJson}; docs/contracts.md section 7); any other path is a 404 and
 * any other method a 405, both with a JSON body {@code {"error": "..."}}.
 *
 * <p>The port comes from {@link #REGIONSERVER_PORT_KEY} or {@link #MASTER_PORT_KEY}: -1 turns the
 * endpoint off, 0 takes any free port (tests; {@link #address()} says which). A configuration without the
 * key runs no endpoint, and bin/engine's conf/engine-site.xml leaves both keys unset (HBase's ports are
 * 16030 and 16010), so servers and tests on one host never fight over a fixed port; a deployment or lab
 * that scrapes the endpoint sets them. A taken port fails start-up with one line
 * naming the key ({@link PortInUseException}).
 *
 * <p>One daemon thread answers the requests, one at a time: a scrape is rare and cheap, and the endpoint
 * must never take CPU from the handlers. Thread safety: {@link #stop()} may be called from any thread and
 * is idempotent.
 */
public final class InfoServer implements AutoCloseable {
    public static final String REGIONSERVER_PORT_KEY = "hbase.regionserver.info.port";
    public static final String MASTER_PORT_KEY = "hbase.master.info.port";
    public static final String METRICS_PATH = "/metrics";
    private static final InfoServer OFF = new InfoServer(null, null, null);

    private final HttpServer http;
    private final ExecutorService executor;
    private final String address;
    private boolean stopped;

    private InfoServer(HttpServer http, ExecutorService executor, String address) {
        this.http = http;
        this.executor = executor;
        this.address = address;
    }

    /**
     * Starts the endpoint on {@code host} and the port {@code portKey} names (absent or -1: none; the
     * returned server is then a no-op whose {@link #address()} is "").
     *
     * @throws ConfigurationException when the port is not a number in -1..65535
     * @throws PortInUseException when the port is taken
     */
    public static InfoServer start(Configuration conf, String portKey, String host, Supplier<String> json)
        throws IOException {
        int port = port(conf, portKey);
        if (port < 0) {
            return OFF;
        }
        GcEventRecorder.pauseLog(); // the endpoint's gc group counts pauses from here on
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (BindException e) {
            throw new PortInUseException(host, port, portKey, e.getMessage());
        }
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "info-server");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        http.createContext("/", exchange -> answer(exchange, json));
        http.start();
        InfoServer server = new InfoServer(http, executor, host + ":" + http.getAddress().getPort());
        ServerLog.info("metrics endpoint: http://" + server.address + METRICS_PATH + " (" + portKey + ")");
        return server;
    }

    static int port(Configuration conf, String portKey) {
        String raw = conf.get(portKey, "-1").trim();
        try {
            int port = Integer.parseInt(raw);
            if (port >= -1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigurationException(portKey + " = '" + raw + "': expected a port number 0..65535, or -1 for "
            + "no metrics endpoint");
    }

    private static void answer(HttpExchange exchange, Supplier<String> json) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (!METRICS_PATH.equals(path)) {
                send(exchange, 404, error("no such path: " + path + "; try GET " + METRICS_PATH));
                return;
            }
            String method = exchange.getRequestMethod();
            if (!"GET".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET");
                send(exchange, 405, error("method " + method + " not allowed on " + METRICS_PATH + "; use GET"));
                return;
            }
            String body;
            try {
                body = json.get();
            } catch (RuntimeException e) { // a bug in a metrics group must not kill the endpoint thread
                ServerLog.warn("metrics endpoint: " + e);
                send(exchange, 500, error("cannot build the metrics: " + e));
                return;
            }
            send(exchange, 200, body);
        }
    }

    private static String error(String message) {
        return new JsonWriter().put("error", message).toString();
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = (body + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** "host:port" of the endpoint, or "" when it is off (what REGISTER sends to the master). */
    public String address() {
        return address == null ? "" : address;
    }

    /** The bound port, or -1 when the endpoint is off. */
    public int port() {
        return http == null ? -1 : http.getAddress().getPort();
    }

    /** Stops answering and closes the port. Idempotent. */
    public void stop() {
        synchronized (this) {
            if (http == null || stopped) {
                return;
            }
            stopped = true;
        }
        http.stop(0);
        executor.shutdownNow();
    }

    @Override
    public void close() {
        stop();
    }

    /** The port is taken: one line naming the port and the key to change. */
    public static final class PortInUseException extends IOException {
        PortInUseException(String host, int port, String key, String cause) {
            super("metrics endpoint port " + port + " on " + host + " is already in use (" + cause + "); stop the "
                + "process holding it or set " + key + " in engine-site.xml (-1 turns the endpoint off)");
        }
    }
}
