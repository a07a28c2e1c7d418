package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.buffers.HeapRequestBuffers;
import org.heaplab.rpc.buffers.HeapResponseEncoder;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RpcScheduler without sockets: HBase's queue and handler counts, the read/write split, full queues. */
@Timeout(30)
class RpcSchedulerTest {
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final HeapRequestBuffers buffers = new HeapRequestBuffers();

    /** A transport that decodes what it is sent. */
    static final class Recorder implements CallTransport {
        final List<Response> responses = new CopyOnWriteArrayList<>();

        @Override
        public void send(ResponseFrame frame) {
            ByteBuffer b = frame.buffers()[0];
            byte[] body = new byte[b.remaining() - 4];
            b.position(b.position() + 4);
            b.get(body);
            try {
                responses.add(FrameReader.readResponse(body));
            } catch (MalformedFrameException e) {
                throw new AssertionError(e);
            } finally {
                frame.release();
            }
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public String remoteAddress() {
            return "test";
        }
    }

    private static Configuration conf(int handlers, String factor, String ratio) {
        return new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, Integer.toString(handlers))
            .set(RpcScheduler.HANDLER_FACTOR_KEY, factor).set(RpcScheduler.READ_RATIO_KEY, ratio);
    }

    @ParameterizedTest(name = "handlers={0} factor={1} ratio={2}")
    @CsvSource({
        // handlers, factor, ratio, write queues, write handlers, read queues, read handlers (0 = no split: "all")
        "30, 0.1, 0,   0, 0, 3, 30",   // HBase 2's defaults: 3 queues, 30 handlers
        "30, 0,   0,   0, 0, 1, 30",   // factor 0: one shared queue
        "30, 0.1, 0.5, 1, 15, 2, 15",  // 3 queues: writers max(1, 3 - round(1.5)=2) = 1
        "10, 1,   0.7, 3, 3, 7, 7",    // a queue per handler: 3 write, 7 read
        "30, 0.1, 1,   1, 1, 2, 29",   // ratio 1 still keeps one writer
        "20, 0.5, 0.9, 1, 2, 9, 18",   // 10 queues: writers max(1, 10 - 9) = 1; handlers 20 - 18 = 2
        "4,  0,   0.5, 0, 0, 1, 4",    // one queue cannot be split
        "2,  2,   0,   0, 0, 4, 4",    // more queues than handlers: one handler per queue at least
    })
    void queueAndHandlerCountsFollowHBasesFormula(int handlers, String factor, String ratio, int wq, int wh, int rq, int rh) {
        RpcScheduler s = new RpcScheduler(conf(handlers, factor, ratio), r -> RpcService.Reply.EMPTY, new RpcMetrics(), log::add);
        List<RpcScheduler.QueueStats> qs = s.queues();
        int writeQueues = 0;
        int writeHandlers = 0;
        int readQueues = 0;
        int readHandlers = 0;
        for (RpcScheduler.QueueStats q : qs) {
            assertTrue(q.handlers() >= 1, "every queue has a handler: " + qs);
            assertEquals(handlers * RpcConstants.CALLQUEUE_PER_HANDLER, q.capacity(), "capacity per queue: handlers x 10");
            if (q.kind().equals("write")) {
                writeQueues++;
                writeHandlers += q.handlers();
            } else {
                assertEquals(wq == 0 ? "all" : "read", q.kind());
                readQueues++;
                readHandlers += q.handlers();
            }
        }
        assertEquals(List.of(wq, wh, rq, rh), List.of(writeQueues, writeHandlers, readQueues, readHandlers), qs.toString());
        assertEquals(wh + rh, s.handlerCount());
    }

    @Test
    void badValuesAreOneLineNamingTheKey() {
        RpcService svc = r -> RpcService.Reply.EMPTY;
        ConfigurationException e = assertThrows(ConfigurationException.class,
            () -> new RpcScheduler(conf(4, "0.1", "1.5"), svc, new RpcMetrics(), log::add));
        assertTrue(e.getMessage().startsWith(RpcScheduler.READ_RATIO_KEY), e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> new RpcScheduler(conf(0, "0.1", "0"), svc, new RpcMetrics(), log::add));
        assertTrue(e.getMessage().startsWith(RpcConstants.HANDLER_COUNT_KEY), e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> new RpcScheduler(conf(4, "-1", "0"), svc, new RpcMetrics(), log::add));
        assertTrue(e.getMessage().startsWith(RpcScheduler.HANDLER_FACTOR_KEY), e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> new RpcScheduler(
            conf(4, "0.1", "0").set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "0"), svc, new RpcMetrics(), log::add));
        assertTrue(e.getMessage().startsWith(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY), e.getMessage());
    }

    private RpcCall call(Recorder t, int id, Method m, RpcMetrics metrics) {
        Request r = new Request(id, m, new byte[0], List.of());
        return new RpcCall(t, r, buffers.allocate(RpcConstants.MIN_REQUEST_BODY), HeapResponseEncoder.INSTANCE, metrics,
            log::add, () -> { });
    }

    /** PUTs block in the service until released; everything else answers at once. */
    private static RpcService blockingWrites(CountDownLatch writesEntered, CountDownLatch releaseWrites) {
        return request -> {
            if (RpcCall.isWrite(request.method())) {
                writesEntered.countDown();
                try {
                    releaseWrites.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return RpcService.Reply.EMPTY;
        };
    }

    @Test
    void aWriteFloodFillsOnlyTheWriteQueueAndReadsAreStillServed() throws Exception {
        // 2 handlers, 2 queues, ratio 0.5: one write queue + handler, one read queue + handler; 4 calls per queue
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RpcMetrics metrics = new RpcMetrics();
        RpcScheduler s = new RpcScheduler(conf(2, "1", "0.5").set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "4"),
            blockingWrites(entered, release), metrics, log::add);
        s.start();
        Recorder t = new Recorder();
        try {
            assertTrue(s.dispatch(call(t, 0, Method.PUT, metrics)));
            assertTrue(entered.await(10, TimeUnit.SECONDS), "the write handler is busy with the first PUT");
            int accepted = 0;
            int refused = 0;
            for (int i = 1; i <= 10; i++) {
                if (s.dispatch(call(t, i, i % 3 == 0 ? Method.DELETE : Method.PUT, metrics))) {
                    accepted++;
                } else {
                    refused++;
                }
            }
            assertEquals(4, accepted, "the write queue holds its capacity");
            assertEquals(6, refused, "the rest of the flood is refused, not piled up");
            // reads go to their own queue and handler: each answered while every write still waits
            for (int i = 0; i < 20; i++) {
                assertTrue(s.dispatch(call(t, 100 + i, i % 2 == 0 ? Method.GET : Method.SCAN, metrics)), "read " + i + " is queued");
                awaitResponses(t, i + 1);
            }
            for (Response r : t.responses) {
                assertTrue(r.callId() >= 100 && !r.isError(), r::toString);
            }
            List<RpcScheduler.QueueStats> qs = s.queues();
            assertEquals("write", qs.get(0).kind());
            assertEquals(4, qs.get(0).length(), "the write queue is full");
            assertEquals(6, qs.get(0).rejected());
            assertEquals("read", qs.get(1).kind());
            assertEquals(20, qs.get(1).dispatched());
            assertEquals(0, qs.get(1).rejected());
        } finally {
            release.countDown();
            s.stop();
        }
        assertEquals(20 + 5, t.responses.size(), "stop ran every queued write");
        assertEquals(6, buffers.outstanding(), "only the 6 refused calls (never answered here) hold buffers");
    }

    private static void awaitResponses(Recorder t, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.responses.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(n, t.responses.size(), "responses so far");
    }

    @Test
    void withoutASplitTheSameFloodLeavesNoRoomForReads() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RpcMetrics metrics = new RpcMetrics();
        RpcScheduler s = new RpcScheduler(conf(1, "1", "0").set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "4"),
            blockingWrites(entered, release), metrics, log::add);
        s.start();
        Recorder t = new Recorder();
        try {
            assertTrue(s.dispatch(call(t, 0, Method.PUT, metrics)));
            assertTrue(entered.await(10, TimeUnit.SECONDS));
            for (int i = 1; i <= 4; i++) {
                assertTrue(s.dispatch(call(t, i, Method.INCREMENT, metrics)));
            }
            assertFalse(s.dispatch(call(t, 100, Method.GET, metrics)), "a read finds the shared queue full of writes");
            assertEquals(0, t.responses.size());
        } finally {
            release.countDown();
            s.stop();
        }
        assertEquals(5, t.responses.size());
        assertEquals(5, metrics.snapshot().values().stream().mapToLong(RpcMetrics.MethodStats::count).sum());
    }

    @Test
    void stopRunsQueuedCallsAndLaterDispatchesAnswerServerStopping() throws Exception {
        RpcMetrics metrics = new RpcMetrics();
        RpcScheduler s = new RpcScheduler(conf(3, "1", "0"), r -> RpcService.Reply.EMPTY, metrics, log::add);
        s.start();
        Recorder t = new Recorder();
        List<RpcCall> calls = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            calls.add(call(t, i, Method.GET, metrics));
            assertTrue(s.dispatch(calls.get(i)));
        }
        s.stop();
        assertEquals(15, t.responses.size());
        assertTrue(s.dispatch(call(t, 99, Method.GET, metrics)));
        Response last = t.responses.get(15);
        assertEquals(99, last.callId());
        assertEquals(ErrorCode.SERVER_STOPPING, last.error());
        assertEquals(16, metrics.snapshot().get(Method.GET).count());
        assertEquals(1, metrics.snapshot().get(Method.GET).errors());
    }
}
