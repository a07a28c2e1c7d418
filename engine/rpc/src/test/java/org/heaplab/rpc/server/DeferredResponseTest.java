package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.buffers.HeapRequestBuffers;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.buffers.HeapResponseEncoder;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.buffers.ZeroCopyCellDecoder;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.simple.SimpleRpcServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ServerCall}: a response sent later by another thread (a completion callback), and a request
 * buffer held past its response until a future completes.
 */
@Timeout(60)
class DeferredResponseTest {
    private final List<String> log = new CopyOnWriteArrayList<>();
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    private SimpleRpcServer start(RpcService service, RequestBufferAllocator alloc) throws Exception {
        SimpleRpcServer server = new SimpleRpcServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service,
            // room for every call of the 40-in-flight test: a full queue would answer SERVER_BUSY
            new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "2").set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "64"),
            TestMemory.of(alloc, ZeroCopyCellDecoder.INSTANCE, HeapResponseEncoder.INSTANCE), log::add);
        server.start();
        return server;
    }

    @Test
    void aHeldRequestBufferIsReleasedOnlyAfterTheResponseAndTheHold() throws Exception {
        DirectBufferPool pool = new DirectBufferPool(16 * 1024, 4, 1024, false, true, log::add);
        CompletableFuture<Void> hold = new CompletableFuture<>();
        RpcService service = new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("the two-argument call is used");
            }

            @Override
            public void call(Request request, ServerCall call) {
                call.holdRequestUntil(hold);
                call.reply(new Reply(new byte[0], request.cells())); // echo: written from the held buffer
            }
        };
        SimpleRpcServer server = start(service, pool);
        try (RpcConnection c = RpcConnection.open(HOST, server.port(), 5000, 10_000)) {
            List<KeyValue> cells = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                cells.add(FrameRoundTripTest.kv("row-" + i, "value-" + i)); // ~ 8 KB: one pooled buffer
            }
            Response r = c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(), cells);
            assertEquals(cells, r.cells(), "answered while the hold is pending");
            assertEquals(1, pool.outstanding(), "the buffer is still held after the response");
            hold.complete(null);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pool.outstanding() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(0, pool.outstanding(), "released once the hold completed");
        } finally {
            server.stop();
        }
        pool.checkNoLeaks();
    }

    /** Answers come from another thread in reverse order; every call gets exactly its own answer or error. */
    @Test
    void responsesFromACompletionThreadReachTheirCalls() throws Exception {
        ExecutorService later = Executors.newSingleThreadExecutor();
        List<Runnable> parked = new CopyOnWriteArrayList<>();
        int calls = 40;
        RpcService service = new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("the two-argument call is used");
            }

            @Override
            public void call(Request request, ServerCall call) {
                String row = new String(request.cells().get(0).row(), java.nio.charset.StandardCharsets.US_ASCII);
                KeyValue copy = request.cells().get(0).toOwnKeyValue();
                parked.add(() -> {
                    if (row.endsWith("7")) {
                        call.fail(new IllegalArgumentException("rejected " + row));
                    } else {
                        call.reply(new Reply(new byte[0], List.of(copy)));
                    }
                });
                if (parked.size() == calls) { // answer everything, newest first, from another thread
                    later.execute(() -> {
                        for (int i = parked.size() - 1; i >= 0; i--) {
                            parked.get(i).run();
                        }
                    });
                }
            }
        };
        SimpleRpcServer server = start(service, new HeapRequestBuffers());
        ExecutorService clients = Executors.newFixedThreadPool(calls); // every call in flight at once
        try (RpcConnection c = RpcConnection.open(HOST, server.port(), 5000, 10_000)) {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                String row = "row-" + i;
                results.add(clients.submit(() -> {
                    try {
                        Response r = c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(),
                            List.of(FrameRoundTripTest.kv(row, row)));
                        return new String(r.cells().get(0).row(), java.nio.charset.StandardCharsets.US_ASCII);
                    } catch (RemoteException e) {
                        return "error:" + e.getMessage();
                    }
                }));
            }
            for (int i = 0; i < calls; i++) {
                String expected = i % 10 == 7 ? "error:rejected row-" + i : "row-" + i;
                assertEquals(expected, results.get(i).get(30, TimeUnit.SECONDS));
            }
        } finally {
            clients.shutdownNow();
            later.shutdownNow();
            server.stop();
        }
        assertTrue(log.isEmpty(), log.toString());
    }
}
