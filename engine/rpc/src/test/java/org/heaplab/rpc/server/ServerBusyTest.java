package org.heaplab.rpc.server;

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
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A full call queue answers SERVER_BUSY at once (the reader is not blocked) while the server keeps
 * serving, and a read/write split keeps reads served under a write flood: on every RpcServers implementation.
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

    @ParameterizedTest
    @MethodSource("implementations")
    void withAReadWriteSplitAWriteFloodLeavesReadsServed(String impl) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RpcService svc = request -> {
            if (RpcCall.isWrite(request.method())) {
                entered.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return RpcService.Reply.of(new ParamWriter().writeInt(request.callId()));
        };
        // 2 handlers, 2 queues, read ratio 0.5: one write queue and handler, one read queue and handler
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "2")
            .set(RpcScheduler.HANDLER_FACTOR_KEY, "1").set(RpcScheduler.READ_RATIO_KEY, "0.5")
            .set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "4");
        server = RpcServers.create(impl, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), svc, conf, log::add);
        server.start();
        try (Socket writer = new Socket(InetAddress.getLoopbackAddress(), server.port());
             RpcConnection reader = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(),
                 5000, 10_000)) {
            writer.setSoTimeout(10_000);
            OutputStream out = writer.getOutputStream();
            DataInputStream in = new DataInputStream(writer.getInputStream());
            out.write(FrameWriter.preamble());
            out.write(FrameWriter.request(1, Method.PUT, new ParamWriter().writeString("t").toByteArray(), List.of()));
            assertTrue(entered.await(10, TimeUnit.SECONDS), "the write handler is stuck");
            for (int id = 2; id <= 12; id++) {
                out.write(FrameWriter.request(id, id % 2 == 0 ? Method.DELETE : Method.INCREMENT, new byte[0], List.of()));
            }
            out.flush();
            for (int i = 0; i < 7; i++) { // 4 queued behind the stuck PUT, 7 refused
                assertEquals(ErrorCode.SERVER_BUSY, read(in).error());
            }
            for (int i = 0; i < 30; i++) { // every read answered while every write still waits
                Response r = reader.call(Method.GET, new byte[0], List.of());
                assertFalse(r.isError());
            }
            release.countDown();
            for (int i = 0; i < 5; i++) {
                assertFalse(read(in).isError());
            }
        }
        List<RpcScheduler.QueueStats> qs = server.scheduler().queues();
        assertEquals(List.of("write", "read"), qs.stream().map(RpcScheduler.QueueStats::kind).toList());
        assertEquals(7, qs.get(0).rejected());
        assertEquals(30, qs.get(1).dispatched());
        assertEquals(0, qs.get(1).rejected());
    }
}
