package org.heaplab.rpc.simple;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcServerBehaviourTest;
import org.heaplab.rpc.server.RpcMemory;
import org.heaplab.rpc.server.RpcServers;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.TestMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** SimpleRpcServer's own machinery: the Responder for writes that would block, its purge, readers, bad keys. */
@Timeout(60)
class SimpleRpcServerTest {
    private static final int BIG = 4 * 1024 * 1024;
    private final List<String> log = new CopyOnWriteArrayList<>();

    /** GET answers one cell of BIG bytes carrying the call id; counts answers. */
    private static RpcService bigAnswers(CountDownLatch answered) {
        String value = "z".repeat(BIG);
        return request -> {
            RpcService.Reply r = new RpcService.Reply(new ParamWriter().writeInt(request.callId()).toByteArray(),
                List.of(FrameRoundTripTest.kv("row-" + request.callId(), value)));
            answered.countDown();
            return r;
        };
    }

    private SimpleRpcServer start(RpcService svc, Configuration conf, DirectBufferPool pool) throws IOException {
        SimpleRpcServer s = new SimpleRpcServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), svc, conf,
            TestMemory.pooled(pool), log::add);
        s.start();
        return s;
    }

    private static Response read(DataInputStream in) throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return FrameReader.readResponse(body);
    }

    @Test
    void responsesTheSocketCannotTakeAreFinishedByTheResponderInOrder() throws Exception {
        DirectBufferPool pool = new DirectBufferPool(64 * 1024, 512, 1024, false, true, log::add);
        int calls = 6;
        CountDownLatch answered = new CountDownLatch(calls);
        SimpleRpcServer server = start(bigAnswers(answered), new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "3"), pool);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            sendGets(s, calls);
            // the client reads nothing until every handler answered: 24 MB cannot fit in the socket buffers
            assertTrue(answered.await(20, TimeUnit.SECONDS), "handlers were never blocked by the unread socket");
            assertTrue(server.responderHandoffs() > 0, "some response waited for the Responder");
            DataInputStream in = new DataInputStream(s.getInputStream());
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                Response r = read(in);
                assertEquals(1, r.cells().size());
                assertEquals(BIG, r.cells().get(0).valueLength());
                assertEquals("row-" + r.callId(), new String(r.cells().get(0).row(), java.nio.charset.StandardCharsets.UTF_8));
                ids.add(r.paramReader().readInt());
            }
            assertEquals(calls, ids.stream().distinct().count(), "each call answered once, frames never interleaved: " + ids);
        } finally {
            server.stop();
        }
        pool.checkNoLeaks();
        assertEquals(pool.createdBuffers(), pool.freeBuffers(), "pending response frames went back to the pool");
    }

    /** The preamble and {@code calls} GETs (ids 1..calls) on {@code s}, not yet answered. */
    private static void sendGets(Socket s, int calls) throws IOException {
        s.setSoTimeout(20_000);
        OutputStream out = s.getOutputStream();
        out.write(FrameWriter.preamble());
        for (int id = 1; id <= calls; id++) {
            out.write(FrameWriter.request(id, Method.GET, new byte[0], List.of()));
        }
        out.flush();
    }

    /**
     * Stop waits while the Responder still has responses the socket did not take, is woken once the last
     * one is written (not at its 10 s limit), and only then closes the connection.
     */
    @Test
    void stopWaitsForTheResponderToWriteWhatIsPendingThenCloses() throws Exception {
        DirectBufferPool pool = new DirectBufferPool(64 * 1024, 512, 1024, false, true, log::add);
        int calls = 6;
        CountDownLatch answered = new CountDownLatch(calls);
        SimpleRpcServer server = start(bigAnswers(answered), new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "3"), pool);
        Thread stopper = new Thread(server::stop, "stopper");
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            sendGets(s, calls);
            assertTrue(answered.await(20, TimeUnit.SECONDS), "every call answered; 24 MB wait for the Responder");
            stopper.start();
            Thread.sleep(300);
            assertTrue(stopper.isAlive(), "stop waits while responses are unwritten");
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int i = 0; i < calls; i++) {
                assertEquals(BIG, read(in).cells().get(0).valueLength());
            }
            long drained = System.nanoTime();
            stopper.join(5000);
            assertFalse(stopper.isAlive(), "stop ended once the last response was written");
            assertTrue(System.nanoTime() - drained < TimeUnit.SECONDS.toNanos(3), "woken, not at the 10 s limit");
            assertEquals(-1, in.read(), "then the connection was closed");
        } finally {
            server.stop();
            stopper.join(20_000);
        }
        pool.checkNoLeaks();
        assertEquals(pool.createdBuffers(), pool.freeBuffers(), "every response frame went back to the pool");
    }

    @Test
    void aClientThatStopsReadingIsPurgedAndItsPendingFramesReleased() throws Exception {
        DirectBufferPool pool = new DirectBufferPool(64 * 1024, 512, 1024, false, true, log::add);
        CountDownLatch answered = new CountDownLatch(4);
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "2")
            .set(SimpleRpcServer.PURGE_TIMEOUT_KEY, "100");
        SimpleRpcServer server = start(bigAnswers(answered), conf, pool);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
             RpcConnection other = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(), 5000, 20_000)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(FrameWriter.preamble());
            for (int id = 1; id <= 4; id++) {
                out.write(FrameWriter.request(id, Method.GET, new byte[0], List.of()));
            }
            assertTrue(answered.await(20, TimeUnit.SECONDS));
            // never read: within the purge check (every second) the server gives up on this client
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (server.connectionCount() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, server.connectionCount(), "the stalled connection was closed, the other one kept");
            assertTrue(log.stream().anyMatch(l -> l.contains(SimpleRpcServer.PURGE_TIMEOUT_KEY)), log.toString());
            assertEquals(0, pool.outstanding(), "the purged connection's pending frames went back to the pool");
            assertEquals(BIG, other.call(Method.GET, new byte[0], List.of()).cells().get(0).valueLength());
            DataInputStream in = new DataInputStream(s.getInputStream());
            assertThrows(IOException.class, () -> {
                while (true) {
                    if (in.read(new byte[65536]) < 0) {
                        throw new EOFException();
                    }
                }
            });
        } finally {
            server.stop();
        }
        pool.checkNoLeaks();
    }

    @Test
    void manyConnectionsAreSpreadOverTheReadersAndAllServed() throws Exception {
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "4")
            .set(SimpleRpcServer.READER_COUNT_KEY, "3");
        SimpleRpcServer server = new SimpleRpcServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            RpcServerBehaviourTest.ECHO, conf, RpcMemory.fromConf(conf, log::add), log::add);
        server.start();
        assertEquals(3, server.readerCount());
        List<RpcConnection> conns = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                conns.add(RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(), 5000, 10_000));
            }
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < conns.size(); i++) {
                    String row = "c" + i + "-" + round;
                    List<KeyValue> cells = List.of(FrameRoundTripTest.kv(row, row));
                    Response r = conns.get(i).call(Method.PUT, new ParamWriter().writeString(row).toByteArray(), cells);
                    assertEquals(row, r.paramReader().readString());
                    assertEquals(cells, r.cells());
                }
            }
            assertEquals(20, server.connectionCount());
        } finally {
            conns.forEach(RpcConnection::close);
            server.stop();
        }
        assertEquals(0, server.allocator().outstanding());
        assertTrue(server.metrics().snapshot().get(Method.PUT).count() == 60);
    }

    @Test
    void badKeysFailWithOneLineNamingTheKey() {
        RpcService svc = RpcServerBehaviourTest.ECHO;
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        Configuration noReaders = new Configuration().set(SimpleRpcServer.READER_COUNT_KEY, "0");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> new SimpleRpcServer(any, svc,
            noReaders, RpcMemory.fromConf(noReaders, log::add), log::add));
        assertTrue(e.getMessage().startsWith(SimpleRpcServer.READER_COUNT_KEY), e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> RpcServers.fromConf(any, svc,
            new Configuration().set(RpcServers.IMPL_KEY, "FastRpcServer"), log::add));
        assertTrue(e.getMessage().startsWith(RpcServers.IMPL_KEY) && e.getMessage().contains("SimpleRpcServer"), e.getMessage());
        assertEquals("SimpleRpcServer", RpcServers.fromConf(any, svc,
            new Configuration().set(RpcServers.IMPL_KEY, "org.apache.hadoop.hbase.ipc.SimpleRpcServer"), log::add).name());
        assertEquals("SimpleRpcServer", RpcServers.fromConf(any, svc,
            new Configuration().set(RpcServers.IMPL_KEY, "BlockingRpcServer"), log::add).name());
        assertTrue(log.stream().anyMatch(l -> l.contains("old name of SimpleRpcServer")), log.toString());
    }

    private static long directUsed() {
        for (java.lang.management.BufferPoolMXBean b
            : java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b.getMemoryUsed();
            }
        }
        throw new AssertionError("no direct buffer pool bean");
    }

    @Test
    void theHeapPathMovesBigFramesIn64KbChunksAndPinsNoDirectMemory() throws Exception {
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "2");
        SimpleRpcServer server = new SimpleRpcServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            RpcServerBehaviourTest.ECHO, conf, RpcMemory.fromConf(conf, log::add), log::add);
        server.start();
        long before = directUsed();
        long grown;
        try (RpcConnection c = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(), 5000, 20_000)) {
            List<KeyValue> cells = List.of(FrameRoundTripTest.kv("big", "b".repeat(16 * 1024 * 1024)));
            for (int i = 0; i < 2; i++) {
                Response r = c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(), cells);
                assertEquals(cells, r.cells());
            }
            grown = directUsed() - before; // while the server's threads live (the JDK frees their cache when they end)
        } finally {
            server.stop();
        }
        // unchunked, the reader and the handler would each keep a 16 MB temporary direct buffer
        assertTrue(grown < 4 * 1024 * 1024, "direct memory grew by " + grown + " bytes for 16 MB heap frames");
    }
}
