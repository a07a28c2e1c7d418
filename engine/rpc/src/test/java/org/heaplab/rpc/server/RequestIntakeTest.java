package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.buffers.CopyingCellDecoder;
import org.heaplab.rpc.buffers.HeapRequestBuffers;
import org.heaplab.rpc.buffers.HeapResponseEncoder;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link RequestIntake#awaitAnswered}: woken by the last answer of a stopping server, or given up at its timeout. */
@Timeout(30)
class RequestIntakeTest {
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final BlockingQueue<ServerCall> held = new LinkedBlockingQueue<>();
    private final RpcScheduler scheduler = new RpcScheduler(new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "1"),
        new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("the two-argument call is used");
            }

            @Override
            public void call(Request request, ServerCall call) {
                held.add(call); // answered later by the test
            }
        }, new RpcMetrics(), log::add);
    private volatile boolean stopping;
    private final RequestIntake intake = new RequestIntake(CopyingCellDecoder.INSTANCE, HeapResponseEncoder.INSTANCE,
        new RpcMetrics(), scheduler, log::add, () -> stopping);
    private final List<ResponseFrame> sent = new CopyOnWriteArrayList<>();
    private final CallTransport transport = new CallTransport() {
        @Override
        public void send(ResponseFrame frame) {
            sent.add(frame);
            frame.release();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public String remoteAddress() {
            return "test";
        }
    };

    @AfterEach
    void stopScheduler() {
        ServerCall c;
        while ((c = held.poll()) != null) {
            c.reply(RpcService.Reply.EMPTY);
        }
        scheduler.stop();
    }

    /** One STATUS request frame, as a reader would hand it over. */
    private static RequestBuffer request(int callId) {
        byte[] frame = FrameWriter.request(callId, Method.STATUS, new byte[0], List.of());
        RequestBuffer b = new HeapRequestBuffers().allocate(frame.length - 4); // the body, without its length
        b.segments()[0].put(0, frame, 4, frame.length - 4);
        return b;
    }

    private ServerCall takeAndHold(int callId) throws InterruptedException {
        intake.take(transport, request(callId));
        ServerCall call = held.poll(10, TimeUnit.SECONDS);
        assertNotNull(call, "the handler ran the call");
        return call;
    }

    @Test
    void theWaitEndsWithTheLastAnswerNotAtItsTimeout() throws Exception {
        scheduler.start();
        ServerCall first = takeAndHold(1);
        ServerCall second = takeAndHold(2);
        assertEquals(2, intake.inFlight());
        stopping = true;
        first.reply(RpcService.Reply.EMPTY);
        Thread late = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            second.reply(RpcService.Reply.EMPTY); // a completion thread's answer
        });
        long start = System.nanoTime();
        late.start();
        intake.awaitAnswered(20);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, intake.inFlight());
        assertEquals(2, sent.size());
        assertTrue(waitedMs >= 250 && waitedMs < 5000, "woken by the last answer, not the 20 s timeout: " + waitedMs + " ms");
        assertEquals(List.of(), log);
        late.join();
    }

    @Test
    void aCallNeverAnsweredEndsTheWaitAtTheTimeoutAndIsLogged() throws Exception {
        scheduler.start();
        takeAndHold(1);
        stopping = true;
        long start = System.nanoTime();
        intake.awaitAnswered(1);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waitedMs >= 950 && waitedMs < 5000, "the whole timeout: " + waitedMs + " ms");
        assertEquals(List.of("1 calls still unanswered at stop"), log);
    }

    @Test
    void nothingInFlightReturnsAtOnce() {
        stopping = true;
        long start = System.nanoTime();
        intake.awaitAnswered(20);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1));
        assertEquals(List.of(), log);
    }
}
