package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.util.ResourceLeakDetector;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcMemory;
import org.heaplab.rpc.server.RpcScheduler;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * NettyRpcServer's own behaviour: buffer lifetimes (every request frame and pooled response released
 * exactly once, on every path, checked by our counters and by Netty's leak detector at PARANOID), the
 * wire protocol's error semantics, SERVER_BUSY, stop, and the epoll/NIO start-up line. The behaviour
 * shared with SimpleRpcServer is also covered by the rpc tests that iterate RpcServers.implementations().
 */
@Timeout(60)
class NettyRpcServerTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private static final int MAX_REQUEST = 64 * 1024;
    private static ResourceLeakDetector.Level previousLevel;

    private final List<String> log = new CopyOnWriteArrayList<>();
    private NettyRpcServer server;

    /** PUT: echoes the table name and the request's cells (views over the request frame); others empty. */
    private static final RpcService ECHO = request -> request.method() == Method.PUT
        ? new RpcService.Reply(new ParamWriter().writeString(request.paramReader().readString()).toByteArray(), request.cells())
        : RpcService.Reply.EMPTY;

    @BeforeAll
    static void paranoid() {
        previousLevel = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID); // every ByteBuf tracked
        RecordingLeakDetector.clear();
    }

    @AfterAll
    static void restore() {
        ResourceLeakDetector.setLevel(previousLevel);
    }

    private NettyRpcServer start(RpcService service, Configuration conf) throws IOException {
        conf.set(RpcConstants.MAX_REQUEST_SIZE_KEY, Integer.toString(MAX_REQUEST));
        server = build(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service, conf);
        server.start();
        return server;
    }

    /** A server with the memory {@code conf} asks for, as RpcServers makes it. */
    private NettyRpcServer build(InetSocketAddress bind, RpcService service, Configuration conf) {
        return new NettyRpcServer(bind, service, conf, RpcMemory.fromConf(conf, log::add), log::add);
    }

    private static Configuration conf(int handlers) {
        return new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, Integer.toString(handlers))
            .set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, "true");
    }

    /** After every test: the server stopped, every request frame and pooled response given back, no Netty leak. */
    @AfterEach
    void everythingReleased() throws Exception {
        if (server == null) {
            return;
        }
        server.stop();
        awaitTrue(() -> server.requestBuffers().outstanding() == 0);
        assertEquals(0, server.requestBuffers().outstanding(), "request frames never released");
        server.requestBuffers().checkNoLeaks();
        assertEquals(0, server.responseBuffers().outstanding(), "pooled response buffers never released");
        assertEquals(List.of(), RecordingLeakDetector.collectLeaks(), "Netty's leak detector reported leaks");
    }

    private RpcConnection connect() throws IOException {
        return RpcConnection.open(HOST, server.port(), 5000, 20_000);
    }

    private Socket raw() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(20_000);
        return s;
    }

    static KeyValue kv(String row, String value) {
        return KeyValue.create(row.getBytes(StandardCharsets.UTF_8), "info0".getBytes(StandardCharsets.UTF_8),
            "0".getBytes(StandardCharsets.UTF_8), 42L, KeyValue.Type.PUT, value.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] put(int callId, String table, List<KeyValue> cells) {
        return FrameWriter.request(callId, Method.PUT, new ParamWriter().writeString(table).toByteArray(), cells);
    }

    private static Response readResponse(DataInputStream in) throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return FrameReader.readResponse(body);
    }

    private static void assertClosedByServer(DataInputStream in) {
        assertThrows(IOException.class, () -> {
            while (true) {
                if (in.read() < 0) {
                    throw new EOFException();
                }
            }
        });
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
    }

    @ParameterizedTest(name = "hbase.server.allocator.pool.enabled={0}")
    @ValueSource(booleans = {true, false})
    void echoesCellsToManyThreadsOnOneConnectionAndOnTheirOwn(boolean pooled) throws Exception {
        start(ECHO, conf(4).set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, Boolean.toString(pooled)));
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (RpcConnection shared = connect()) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    try (RpcConnection own = connect()) {
                        for (int i = 0; i < 100; i++) {
                            RpcConnection c = i % 2 == 0 ? shared : own;
                            String row = "t" + id + "-" + i;
                            // 2 KB values: a frame spans several socket reads now and then
                            List<KeyValue> cells = List.of(kv(row, row.repeat(200)), kv(row + "b", "v"));
                            Response r = c.call(Method.PUT, new ParamWriter().writeString(row).toByteArray(), cells);
                            assertEquals(row, r.paramReader().readString());
                            assertEquals(cells, r.cells());
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                threads.add(th);
                th.start();
            }
            for (Thread th : threads) {
                th.join();
            }
        }
        assertEquals(List.of(), errors);
        assertEquals(800, server.requestBuffers().allocations(), "one wrapped frame per call");
        assertTrue(server.requestBuffers().poolAllocationBytes() > 0, "requests stay in Netty's pooled direct buffers");
        assertEquals(pooled, server.responseEncoder().describe().startsWith("PooledDirect"), server.responseEncoder().describe());
    }

    @Test
    void undecodableFramesAreAnsweredAndTheConnectionStaysOpen() throws Exception {
        start(ECHO, conf(2));
        try (Socket s = raw()) {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FrameWriter.preamble());
            out.write(FrameWriter.request(7, (byte) 99, new byte[0], List.of()));
            out.write(FrameWriter.request(8, Method.PUT, new byte[] {0, 0, 0, 9}, List.of())); // params lie
            out.write(put(9, "t", List.of(kv("r", "v"))));
            out.flush();
            java.util.Map<Integer, Response> byId = new java.util.HashMap<>();
            for (int i = 0; i < 3; i++) {
                Response r = readResponse(in); // handlers answer in any order
                byId.put(r.callId(), r);
            }
            assertEquals(ErrorCode.UNKNOWN_METHOD, byId.get(7).error());
            assertEquals(ErrorCode.MALFORMED_REQUEST, byId.get(8).error());
            assertFalse(byId.get(9).isError(), "the connection still serves");
        }
    }

    @Test
    void framingErrorsAreAnsweredThenTheConnectionIsClosedWhileOthersAreServed() throws Exception {
        start(ECHO, conf(2));
        try (RpcConnection good = connect(); Socket preamble = raw(); Socket big = raw(); Socket shortFrame = raw()) {
            preamble.getOutputStream().write("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            DataInputStream in = new DataInputStream(preamble.getInputStream());
            Response r = readResponse(in);
            assertEquals(ErrorCode.BAD_PREAMBLE, r.error());
            assertEquals(RpcConstants.NO_CALL_ID, r.callId());
            assertClosedByServer(in);

            OutputStream out = big.getOutputStream();
            out.write(FrameWriter.preamble());
            out.write(new byte[] {0, 1, 0, 1, 0, 0, 0, 42}); // 65537 bytes > 64 KB max, call id 42
            out.flush();
            in = new DataInputStream(big.getInputStream());
            r = readResponse(in);
            assertEquals(ErrorCode.REQUEST_TOO_BIG, r.error());
            assertEquals(42, r.callId());
            assertClosedByServer(in);

            out = shortFrame.getOutputStream();
            out.write(FrameWriter.preamble());
            out.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xf0}); // negative length
            out.flush();
            in = new DataInputStream(shortFrame.getInputStream());
            assertEquals(ErrorCode.MALFORMED_REQUEST, readResponse(in).error());
            assertClosedByServer(in);

            assertEquals(List.of(kv("a", "b")), good.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(),
                List.of(kv("a", "b"))).cells());
        }
        assertTrue(log.stream().anyMatch(l -> l.contains(RpcConstants.MAX_REQUEST_SIZE_KEY)), log.toString());
    }

    @Test
    void truncatedFramesAndVanishingClientsReleaseEverything() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger closed = new AtomicInteger();
        RpcService slow = new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("the two-argument call is used");
            }

            @Override
            public void call(Request request, ServerCall call) {
                call.closeAfterResponse(closed::incrementAndGet);
                entered.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                call.reply(new Reply(new byte[0], request.cells())); // into a closed channel
            }
        };
        start(slow, conf(2));
        try (Socket s = raw()) {
            OutputStream out = s.getOutputStream();
            out.write(FrameWriter.preamble());
            out.write(put(1, "t", List.of(kv("r", "x".repeat(20_000)))));
            byte[] cut = put(2, "t", List.of(kv("r2", "y")));
            out.write(cut, 0, cut.length - 3); // the second frame never ends
            out.flush();
            assertTrue(entered.await(20, TimeUnit.SECONDS));
        } // the client vanishes while its first call runs
        awaitTrue(() -> server.connectionCount() == 0);
        assertEquals(0, server.connectionCount(), "the channel closed with its client");
        go.countDown();
        awaitTrue(() -> server.requestBuffers().outstanding() == 0 && closed.get() == 1);
        assertEquals(1, closed.get(), "closeAfterResponse ran exactly once");
        assertEquals(1, server.requestBuffers().allocations(), "the truncated frame never became a request");
    }

    @Test
    void aHeldRequestFrameOutlivesItsResponseUntilTheHoldCompletes() throws Exception {
        CompletableFuture<Void> hold = new CompletableFuture<>();
        AtomicInteger closed = new AtomicInteger();
        RpcService service = new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("the two-argument call is used");
            }

            @Override
            public void call(Request request, ServerCall call) {
                call.holdRequestUntil(hold);
                call.closeAfterResponse(closed::incrementAndGet);
                call.reply(new Reply(new byte[0], request.cells()));
                call.reply(Reply.EMPTY); // a second answer is ignored
            }
        };
        start(service, conf(2));
        try (RpcConnection c = connect()) {
            List<KeyValue> cells = List.of(kv("held", "value".repeat(100)));
            assertEquals(cells, c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(), cells).cells());
            awaitTrue(() -> closed.get() == 1); // closed by the handler right after it handed the frame over
            assertEquals(1, closed.get());
            assertEquals(1, server.requestBuffers().outstanding(), "the frame is still held after the response");
            hold.complete(null);
            awaitTrue(() -> server.requestBuffers().outstanding() == 0);
            assertEquals(0, server.requestBuffers().outstanding(), "released once the hold completed");
            assertEquals(1, closed.get(), "closed exactly once");
        } finally {
            hold.complete(null);
        }
    }

    @Test
    void aFullCallQueueAnswersServerBusyAndTheQueuedCallsStillRun() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        RpcService blocking = request -> {
            entered.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return RpcService.Reply.EMPTY;
        };
        start(blocking, conf(1).set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "1"));
        try (Socket s = raw()) {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FrameWriter.preamble());
            out.write(put(0, "t", List.of()));
            out.flush();
            assertTrue(entered.await(20, TimeUnit.SECONDS), "call 0 runs on the only handler");
            for (int id = 1; id <= 4; id++) {
                out.write(put(id, "t", List.of())); // 1 queued, 2..4 refused
            }
            out.flush();
            Set<Integer> busy = new TreeSet<>();
            for (int i = 0; i < 3; i++) {
                Response r = readResponse(in);
                assertEquals(ErrorCode.SERVER_BUSY, r.error());
                busy.add(r.callId());
            }
            assertEquals(Set.of(2, 3, 4), busy);
            go.countDown();
            Set<Integer> ok = new TreeSet<>();
            for (int i = 0; i < 2; i++) {
                Response r = readResponse(in);
                assertFalse(r.isError(), r.message());
                ok.add(r.callId());
            }
            assertEquals(Set.of(0, 1), ok);
        }
        RpcScheduler.QueueStats q = server.scheduler().queues().get(0);
        assertEquals(3, q.rejected());
    }

    @Test
    void stopAnswersQueuedCallsThenClosesTheConnections() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        RpcService blocking = request -> {
            entered.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return RpcService.Reply.EMPTY;
        };
        start(blocking, conf(1));
        try (Socket s = raw()) {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FrameWriter.preamble());
            for (int id = 0; id < 3; id++) {
                out.write(put(id, "t", List.of(kv("r" + id, "v"))));
            }
            out.flush();
            assertTrue(entered.await(20, TimeUnit.SECONDS));
            awaitTrue(() -> server.requestBuffers().allocations() == 3);
            Thread stopper = new Thread(server::stop);
            stopper.start();
            awaitTrue(server::isStopping);
            go.countDown();
            Set<Integer> ok = new TreeSet<>();
            for (int i = 0; i < 3; i++) {
                Response r = readResponse(in);
                assertFalse(r.isError(), r.message());
                ok.add(r.callId());
            }
            assertEquals(Set.of(0, 1, 2), ok, "every queued call answered");
            assertClosedByServer(in);
            stopper.join(30_000);
            assertFalse(stopper.isAlive());
        }
        assertThrows(IOException.class, this::raw, "nothing listens after stop");
    }

    @Test
    void aClientThatDoesNotReadIsNoLongerReadUntilItCatchesUp() throws Exception {
        start(ECHO, conf(2).set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "1000"));
        List<KeyValue> cells = List.of(kv("big", "x".repeat(50_000))); // each answer ~50 KB (requests under the 64 KB max)
        int calls = 240; // ~12 MB of answers: past the kernel's socket buffers (up to 4 MB here) and the 2 MB mark
        try (Socket s = new Socket(); RpcConnection other = connect()) {
            s.setReceiveBufferSize(64 * 1024); // before connecting, so that the window stays small
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(FrameWriter.preamble());
            Thread writer = new Thread(() -> {
                try {
                    for (int id = 0; id < calls; id++) {
                        out.write(put(id, "t", cells));
                    }
                    out.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.start(); // blocks once the server stops reading and the socket buffers fill
            awaitTrue(() -> server.pausedConnections() == 1);
            assertEquals(1, server.pausedConnections(), "the connection is no longer read");
            assertEquals(List.of(kv("a", "b")), other.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(),
                List.of(kv("a", "b"))).cells(), "other clients are served meanwhile");
            DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(s.getInputStream()));
            Set<Integer> answered = new TreeSet<>();
            for (int i = 0; i < calls; i++) {
                Response r = readResponse(in);
                assertFalse(r.isError(), r.message());
                assertEquals(cells, r.cells());
                answered.add(r.callId());
            }
            assertEquals(calls, answered.size(), "every call answered once the client read");
            writer.join(20_000);
            assertEquals(0, server.pausedConnections());
        }
    }

    @ParameterizedTest(name = "hbase.netty.nativetransport={0}")
    @ValueSource(booleans = {true, false})
    void theTransportChoiceIsDescribedAndBothServe(boolean nativeTransport) throws Exception {
        start(ECHO, conf(2).set(NettyEventLoops.NATIVE_TRANSPORT_KEY, Boolean.toString(nativeTransport))
            .set(NettyEventLoops.WORKER_COUNT_KEY, "3"));
        boolean epoll = nativeTransport && Epoll.isAvailable();
        assertEquals(epoll, server.isEpoll());
        assertEquals(3, server.eventLoopCount());
        String line = server.describe(); // the region server's start-up line prints it
        assertTrue(line.startsWith("NettyRpcServer, " + (epoll ? "epoll transport" : "NIO transport")), line);
        assertTrue(line.contains("3 event loop(s)"), line);
        if (!nativeTransport) {
            assertTrue(line.contains(NettyEventLoops.NATIVE_TRANSPORT_KEY + "=false"), line);
        }
        assertEquals(List.of(), log, "nothing logged at start-up through the problem log");
        try (RpcConnection c = connect()) {
            assertEquals(List.of(kv("a", "b")), c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(),
                List.of(kv("a", "b"))).cells());
        }
    }

    /**
     * The request-buffer switch chooses SimpleRpcServer's request buffers, not this server's: requests stay
     * in Netty's frames either way, and the start-up line must say so rather than let a heap-request
     * configuration pass for one.
     */
    @ParameterizedTest(name = "hbase.server.allocator.pool.enabled={0}")
    @ValueSource(booleans = {true, false})
    void theStartUpLineSaysTheRequestBufferSwitchDoesNotApplyToRequests(boolean pool) throws Exception {
        start(ECHO, conf(2).set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, Boolean.toString(pool)));
        String line = server.describe();
        assertTrue(line.contains("requests stay in Netty's pooled ByteBufs whatever "
            + RpcConstants.ALLOCATOR_POOL_ENABLED_KEY + " says (" + pool + " here"), line);
        assertTrue(line.contains("it picks only the response buffers and the default cell decoder"), line);
        try (RpcConnection c = connect()) {
            c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(), List.of(kv("a", "b")));
        }
        assertTrue(server.allocator() instanceof NettyRequestBuffers, server.allocator().describe());
        assertEquals(1, server.requestBuffers().allocations(), "the request was one of Netty's frames, switch or not");
    }

    @Test
    void badKeysAreOneLineErrorsNamingTheKey() {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        org.heaplab.core.conf.ConfigurationException e = assertThrows(org.heaplab.core.conf.ConfigurationException.class,
            () -> build(any, ECHO, conf(1).set(NettyEventLoops.WORKER_COUNT_KEY, "-1")));
        assertTrue(e.getMessage().startsWith(NettyEventLoops.WORKER_COUNT_KEY + " must be"), e.getMessage());
        e = assertThrows(org.heaplab.core.conf.ConfigurationException.class, () -> build(any, ECHO,
            conf(1).set(NettyRpcServer.WRITABLE_LOW_WATERMARK_KEY, "300").set(NettyRpcServer.WRITABLE_HIGH_WATERMARK_KEY, "200")));
        assertTrue(e.getMessage().contains(NettyRpcServer.WRITABLE_HIGH_WATERMARK_KEY), e.getMessage());
    }

    @Test
    void aTakenPortIsABindException() throws Exception {
        start(ECHO, conf(1));
        NettyRpcServer second = build(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), ECHO, conf(1));
        assertThrows(java.net.BindException.class, second::start);
        second.stop();
    }

    @Test
    void nettysLeakDetectorIsParanoidAndSeesALeakedBuffer() throws Exception {
        PooledByteBufAllocator.DEFAULT.directBuffer(8).release(); // Netty made its detector by now
        assertTrue(RecordingLeakDetector.installed(), "surefire's io.netty.customResourceLeakDetector is not set");
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());
        leakOne();
        List<String> leaks = List.of();
        for (int i = 0; i < 20 && leaks.isEmpty(); i++) {
            leaks = RecordingLeakDetector.collectLeaks();
        }
        assertFalse(leaks.isEmpty(), "a buffer dropped without release is reported");
        RecordingLeakDetector.clear();
    }

    private static void leakOne() {
        PooledByteBufAllocator.DEFAULT.directBuffer(64).writeInt(1); // never released, on purpose
    }
}
