package org.heaplab.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A full call queue answers SERVER_BUSY at once (the reader is not blocked) while the server keeps
 * serving: on every RpcServers implementation.
 */
@Timeout(30)
class ServerBusyTest {
    private final List<String> log = new CopyOnWriteArrayList<>();
    private RpcServer server;

    static List<String> implementations() {
        return RpcServers.implementations();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static Response read(DataInputStream in) throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return FrameReader.readResponse(body);
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void aFullQueueAnswersServerBusyAndTheServerGoesOn(String impl) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RpcService svc = request -> {
            if (request.method() == Method.FLUSH) { // the one slow call
                entered.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return RpcService.Reply.of(new ParamWriter().writeInt(request.callId()));
        };
        // one handler, one queue of 3 calls
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "1")
            .set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "3").set("hbase.ipc.server.read.threadpool.size", "2");
        server = RpcServers.create(impl, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), svc, conf, log::add);
        server.start();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FrameWriter.preamble());
            out.write(FrameWriter.request(1, Method.FLUSH, new byte[0], List.of()));
            assertTrue(entered.await(10, TimeUnit.SECONDS), "the only handler is busy");
            for (int id = 2; id <= 8; id++) {
                out.write(FrameWriter.request(id, Method.GET, new byte[0], List.of()));
            }
            out.flush();
            // 3 queued, 4 refused: the 4 answers come while the handler is still blocked
            for (int i = 0; i < 4; i++) {
                Response r = read(in);
                assertEquals(ErrorCode.SERVER_BUSY, r.error(), r::toString);
                assertTrue(r.callId() >= 5, "the last four calls are the refused ones: " + r.callId());
                assertTrue(r.message().contains(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY), r.message());
            }
            // a second client is answered too (busy, never ignored) while the handler is blocked
            try (RpcConnection other = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(),
                5000, 10_000)) {
                RemoteException busy = org.junit.jupiter.api.Assertions.assertThrows(RemoteException.class,
                    () -> other.call(Method.GET, new byte[0], List.of()));
                assertEquals(ErrorCode.SERVER_BUSY, busy.code());
                release.countDown();
                Map<Integer, Response> rest = new HashMap<>();
                for (int i = 0; i < 4; i++) {
                    Response r = read(in);
                    rest.put(r.callId(), r);
                }
                assertEquals(List.of(1, 2, 3, 4), rest.keySet().stream().sorted().toList());
                for (Response r : rest.values()) {
                    assertFalse(r.isError());
                    assertEquals(r.callId(), r.paramReader().readInt());
                }
                // the queue drained: calls run again
                assertFalse(other.call(Method.GET, new byte[0], List.of()).isError());
            }
        }
        long rejected = server.scheduler().queues().stream().mapToLong(RpcScheduler.QueueStats::rejected).sum();
        assertEquals(5, rejected);
        RpcMetrics.MethodStats get = server.metrics().snapshot().get(Method.GET);
        assertEquals(5, get.errors(), "busy answers count as errors of their method");
    }
}
