package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The metrics endpoint over a real HTTP socket: paths, methods, errors, port handling. */
@Timeout(60)
class InfoServerTest {
    static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    static final String KEY = InfoServer.REGIONSERVER_PORT_KEY;

    /** Status code and body of one request. */
    record Answer(int status, String body, String contentType) { }

    static Answer request(String method, String address, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://" + address + path).toURL().openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(10_000);
        c.setReadTimeout(30_000);
        int status = c.getResponseCode();
        try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Answer(status, body, c.getHeaderField("Content-Type"));
        } finally {
            c.disconnect();
        }
    }

    static Answer get(String address, String path) throws IOException {
        return request("GET", address, path);
    }

    private static Configuration conf(String port) {
        return new Configuration().set(KEY, port);
    }

    @Test
    void getMetricsAnswersTheSuppliersJsonEachTime() throws Exception {
        AtomicInteger scrapes = new AtomicInteger();
        try (InfoServer s = InfoServer.start(conf("0"), KEY, HOST, () -> "{\"scrape\": " + scrapes.incrementAndGet() + "}")) {
            assertTrue(s.port() > 0);
            assertEquals(HOST + ":" + s.port(), s.address());
            Answer first = get(s.address(), "/metrics");
            assertEquals(200, first.status());
            assertEquals("{\"scrape\": 1}\n", first.body());
            assertTrue(first.contentType().startsWith("application/json"), first.contentType());
            assertEquals("{\"scrape\": 2}\n", get(s.address(), "/metrics?pretty=1").body()); // built per request
        }
    }

    @Test
    void otherPathsAre404AndOtherMethods405WithJsonErrors() throws Exception {
        try (InfoServer s = InfoServer.start(conf("0"), KEY, HOST, () -> "{}")) {
            for (String path : new String[] {"/", "/metrics/", "/jmx", "/metricsx"}) {
                Answer a = get(s.address(), path);
                assertEquals(404, a.status(), path);
                assertTrue(a.body().startsWith("{\"error\": \"no such path: " + path + ";"), a.body());
                assertTrue(a.contentType().startsWith("application/json"));
            }
            Answer post = request("POST", s.address(), "/metrics");
            assertEquals(405, post.status());
            assertTrue(post.body().contains("method POST not allowed"), post.body());
            assertEquals(200, get(s.address(), "/metrics").status()); // still serving after the errors
        }
    }

    @Test
    void aFailingSupplierIs500AndTheEndpointKeepsServing() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (InfoServer s = InfoServer.start(conf("0"), KEY, HOST, () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("boom");
            }
            return "{\"ok\": true}";
        })) {
            Answer failed = get(s.address(), "/metrics");
            assertEquals(500, failed.status());
            assertTrue(failed.body().contains("boom"), failed.body());
            assertEquals(200, get(s.address(), "/metrics").status());
        }
    }

    @Test
    void aTakenPortFailsWithOneLineNamingTheKey() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(HOST, 0));
            int port = taken.getLocalPort();
            for (String key : new String[] {InfoServer.REGIONSERVER_PORT_KEY, InfoServer.MASTER_PORT_KEY}) {
                Configuration c = new Configuration().set(key, Integer.toString(port));
                InfoServer.PortInUseException e = assertThrows(InfoServer.PortInUseException.class,
                    () -> InfoServer.start(c, key, HOST, () -> "{}"));
                assertTrue(e.getMessage().contains(key) && e.getMessage().contains(Integer.toString(port)), e.getMessage());
                assertFalse(e.getMessage().contains("\n"));
            }
        }
    }

    @Test
    void minusOneOrAnAbsentKeyRunsNoEndpoint() throws Exception {
        for (Configuration c : new Configuration[] {conf("-1"), new Configuration()}) {
            InfoServer s = InfoServer.start(c, KEY, HOST, () -> {
                throw new AssertionError("never asked");
            });
            assertEquals("", s.address());
            assertEquals(-1, s.port());
            s.stop(); // a no-op
        }
    }

    @Test
    void aBadPortValueNamesTheKey() {
        for (String bad : new String[] {"abc", "65536", "-2", ""}) {
            ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> InfoServer.start(conf(bad), KEY, HOST, () -> "{}"));
            assertTrue(e.getMessage().startsWith(KEY + " = '" + bad + "'"), e.getMessage());
        }
    }

    @Test
    void stopClosesThePortAndIsIdempotent() throws Exception {
        InfoServer s = InfoServer.start(conf("0"), KEY, HOST, () -> "{}");
        String address = s.address();
        assertEquals(200, get(address, "/metrics").status());
        s.stop();
        s.stop();
        assertThrows(IOException.class, () -> get(address, "/metrics"));
    }
}
