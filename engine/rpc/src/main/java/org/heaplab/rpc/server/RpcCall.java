package org.heaplab.rpc.server;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.heaplab.core.util.Futures;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.heaplab.rpc.buffers.ResponseEncoder;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.Request;

/**
 * One decoded request on its way through the server, shared by every {@link RpcServer}: the reader
 * (or Netty's request decoder) makes it, the {@link RpcScheduler} queues it, a handler {@link #run}s
 * it, and whichever thread answers sends the response through the connection's {@link CallTransport}.
 *
 * <p>Answered once: the first {@link #reply} or {@link #fail} wins, later ones are ignored (their frame
 * is released unsent).
 *
 * <p>Buffer ownership: the request buffer (and every cell decoded over it) is released after the
 * response frame is encoded and after every future given to {@link #holdRequestUntil} completed. The
 * frame is a copy, so with no hold the buffer goes back before the write: the client's next request,
 * sent once it has this answer, can reuse it. Resources given to {@link #closeAfterResponse} are closed
 * exactly once, when the transport releases the frame: after it was written (inline, by the Responder
 * or by Netty's event loop), or dropped because the connection is gone.
 *
 * <p>{@code onFinished} runs once, when the call is answered and its buffer released: servers count
 * calls in flight with it, so that stop() waits for deferred answers.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public final class RpcCall implements ServerCall {
    private final CallTransport transport;
    private final Request request;
    private final RequestBuffer buffer;
    private final ResponseEncoder encoder;
    private final RpcMetrics metrics;
    private final Consumer<String> log;
    private final Runnable onFinished;
    private final long receivedNanos = System.nanoTime();
    private volatile long startedNanos;
    private final AtomicBoolean answered = new AtomicBoolean();
    /** Made on first use (most calls hold nothing, or hold a future that is done already). */
    private volatile List<CompletableFuture<?>> holds;
    private volatile List<AutoCloseable> afterResponse;

    /**
     * @param buffer the memory {@code request} was decoded over; released by this call
     * @param metrics receives one {@link RpcMetrics#callDone} per answered call
     * @param log receives one line per call that failed with something other than an expected error
     * @param onFinished run once, when the call is answered and its buffer released
     */
    public RpcCall(CallTransport transport, Request request, RequestBuffer buffer, ResponseEncoder encoder,
                   RpcMetrics metrics, Consumer<String> log, Runnable onFinished) {
        this.transport = transport;
        this.request = request;
        this.buffer = buffer;
        this.encoder = encoder;
        this.metrics = metrics;
        this.log = log;
        this.onFinished = onFinished;
    }

    public Request request() {
        return request;
    }

    /** When the call was decoded (System.nanoTime): queue wait and latency count from here. */
    public long receivedNanos() {
        return receivedNanos;
    }

    /** PUT, DELETE, INCREMENT (and REGISTER, HEARTBEAT on the master): the write queues when hbase.ipc.server.callqueue.read.ratio > 0. */
    public boolean isWrite() {
        return request != null && isWrite(request.method());
    }

    /**
     * Mutations (HBase: any MutateRequest or multi with a mutation) are writes, and, as in HBase's
     * RWQueueRpcExecutor, a region server's start-up and report calls to the master (REGISTER, HEARTBEAT);
     * everything else reads.
     */
    public static boolean isWrite(Method m) {
        return m == Method.PUT || m == Method.DELETE || m == Method.INCREMENT
            || m == Method.REGISTER || m == Method.HEARTBEAT;
    }

    /** Runs the service on the calling handler thread; a service that throws is answered with the error. */
    public void run(RpcService service) {
        startedNanos = System.nanoTime();
        try {
            service.call(request, this);
        } catch (Throwable t) { // a service that broke the no-throw contract: answer anyway
            fail(t);
        }
    }

    @Override
    public void holdRequestUntil(CompletableFuture<?> f) {
        if (f.isDone()) {
            return; // nothing to wait for (a SYNC_WAL put's cells were read before the answer)
        }
        holdList().add(f);
    }

    @Override
    public void closeAfterResponse(AutoCloseable resource) {
        List<AutoCloseable> list = afterResponseList();
        list.add(resource);
        if (answered.get() && list.remove(resource)) {
            closeQuietly(resource); // registered too late: the response is gone already
        }
    }

    private List<CompletableFuture<?>> holdList() {
        List<CompletableFuture<?>> h = holds;
        if (h == null) {
            synchronized (this) {
                if (holds == null) {
                    holds = new CopyOnWriteArrayList<>();
                }
                h = holds;
            }
        }
        return h;
    }

    private List<AutoCloseable> afterResponseList() {
        List<AutoCloseable> a = afterResponse;
        if (a == null) {
            synchronized (this) {
                if (afterResponse == null) {
                    afterResponse = new CopyOnWriteArrayList<>();
                }
                a = afterResponse;
            }
        }
        return a;
    }

    @Override
    public void reply(RpcService.Reply reply) {
        if (answered.get()) {
            return;
        }
        ResponseFrame frame;
        try {
            // 1.x: a heap byte[]; 2.x: pooled direct buffers (cells copied from where they live)
            frame = encoder.encode(request.callId(), reply.params(), reply.cells());
        } catch (Throwable t) {
            fail(t);
            return;
        }
        answer(frame, false);
    }

    @Override
    public void fail(Throwable t) {
        if (!(t instanceof IOException) && !(t instanceof IllegalArgumentException)) {
            log.accept("call " + request.method() + " from " + transport.remoteAddress() + " failed: " + t);
        }
        answer(ResponseFrame.onHeap(FrameWriter.response(ErrorMapping.toResponse(request.callId(), t))), true);
    }

    /** Answers with an error the server decides itself (SERVER_STOPPING), without an exception. */
    public void failWith(ErrorCode code, String errorClass, String message) {
        answer(ResponseFrame.onHeap(FrameWriter.error(request.callId(), code, errorClass, message)), true);
    }

    private void answer(ResponseFrame frame, boolean error) {
        if (!answered.compareAndSet(false, true)) {
            frame.release();
            return; // answered already: the contract allows one answer
        }
        List<CompletableFuture<?>> holdsNow = holds;
        boolean held = false;
        if (holdsNow != null) {
            for (CompletableFuture<?> h : holdsNow) {
                held |= !h.isDone();
            }
        }
        if (!held) {
            buffer.release();
        }
        try {
            // closeAfterResponse once the frame was written (or dropped): whenever the transport releases it;
            // a resource registered after this check closes itself (see closeAfterResponse(AutoCloseable))
            transport.send(afterResponse == null ? frame : frame.withReleaseHook(this::closeAfterResponse));
        } finally {
            long now = System.nanoTime();
            long started = startedNanos == 0 ? now : startedNanos;
            metrics.callDone(request.method(), started - receivedNanos, now - receivedNanos, error);
            if (held) {
                Futures.allSettled(holdsNow).whenComplete((v, e) -> {
                    buffer.release(); // the request's cells are dead from here on
                    onFinished.run();
                });
            } else {
                onFinished.run(); // last: stop() waits for it before closing connections
            }
        }
    }

    private void closeAfterResponse() {
        List<AutoCloseable> list = afterResponse;
        for (AutoCloseable r : list) {
            if (list.remove(r)) {
                closeQuietly(r);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
