package org.heaplab.rpc.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.heaplab.rpc.buffers.ResponseEncoder;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.protocol.CellDecoder;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * What both RPC servers do with a request once its frame's bytes are in a {@link RequestBuffer}: decode it,
 * refuse it while the server stops, make its {@link RpcCall} and queue the call on the
 * {@link RpcScheduler}. The servers differ only in how the bytes arrive (SimpleRpcServer's reader threads,
 * NettyRpcServer's decoders) and how answers leave (their {@link CallTransport}).
 *
 * <pre>
 *   undecodable frame        -&gt; its error (MALFORMED_REQUEST, UNKNOWN_METHOD, ...), connection kept
 *   server stopping          -&gt; SERVER_STOPPING
 *   call queue full          -&gt; SERVER_BUSY (CallQueueTooBigException: the client backs off and retries)
 *   otherwise                -&gt; queued; a handler runs it and answers through the transport
 * </pre>
 *
 * <p>It also counts the calls taken and not yet answered, which a stopping server waits for.
 *
 * <p>Ownership: each server makes one at construction and keeps it for its life. The intake holds the
 * parts every request goes through, the same in both servers (the {@link CellDecoder}, the
 * {@link ResponseEncoder}, the {@link RpcScheduler} and its {@link RpcMetrics}); {@link RpcServer}'s
 * getters read them here, so a server names each part once, where it builds its intake.
 *
 * <p>Thread safety: {@link #take} from any number of reader or event-loop threads at once.
 */
public final class RequestIntake {
    private final CellDecoder decoder;
    private final ResponseEncoder encoder;
    private final RpcMetrics metrics;
    private final RpcScheduler scheduler;
    private final Consumer<String> log;
    private final BooleanSupplier stopping;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Runnable callFinished = this::callFinished; // one object for every call
    private final ReentrantLock answeredLock = new ReentrantLock();
    private final Condition allAnswered = answeredLock.newCondition();

    public RequestIntake(CellDecoder decoder, ResponseEncoder encoder, RpcMetrics metrics, RpcScheduler scheduler,
                         Consumer<String> log, BooleanSupplier stopping) {
        this.decoder = decoder;
        this.encoder = encoder;
        this.metrics = metrics;
        this.scheduler = scheduler;
        this.log = log;
        this.stopping = stopping;
    }

    /**
     * Takes one request frame (the buffer is this method's from here on: released by the call, or here when
     * no call is made) and queues its call, or answers why not through {@code transport}.
     */
    public void take(CallTransport transport, RequestBuffer buffer) {
        Request request;
        try {
            request = FrameReader.readRequest(buffer.contiguous(), decoder);
        } catch (MalformedFrameException e) {
            buffer.release();
            sendError(transport, e.callId(), e.code(), e.getClass().getName(), e.getMessage());
            return;
        } catch (RuntimeException e) { // a decoder bug: answered, so that the client does not wait for nothing
            buffer.release();
            sendError(transport, RpcConstants.NO_CALL_ID, ErrorCode.MALFORMED_REQUEST,
                MalformedFrameException.class.getName(), "undecodable request: " + e);
            return;
        }
        if (stopping.getAsBoolean()) {
            buffer.release();
            sendError(transport, request.callId(), ErrorCode.SERVER_STOPPING, "org.heaplab.rpc.server.ServerStoppingException",
                "the server is stopping");
            return;
        }
        inFlight.incrementAndGet();
        RpcCall call = new RpcCall(transport, request, buffer, encoder, metrics, log, callFinished);
        if (!scheduler.dispatch(call)) {
            call.fail(new CallQueueTooBigException("call queue is full (" + RpcConstants.MAX_CALLQUEUE_LENGTH_KEY
                + "); back off and retry"));
        }
    }

    /**
     * A call was answered. Only a stopping server can be waiting for the count to reach 0, so a running
     * one pays no lock here; a stopper that set its flag after the decrement sees the 0 itself.
     */
    private void callFinished() {
        if (inFlight.decrementAndGet() == 0 && stopping.getAsBoolean()) {
            answeredLock.lock();
            try {
                allAnswered.signalAll();
            } finally {
                answeredLock.unlock();
            }
        }
    }

    private static void sendError(CallTransport transport, int callId, ErrorCode code, String errorClass, String message) {
        transport.send(ResponseFrame.onHeap(FrameWriter.error(callId, code, errorClass, message)));
    }

    /** How request cells are decoded (copies or views over the request buffer). */
    public CellDecoder decoder() {
        return decoder;
    }

    /** How OK responses are encoded (heap or pooled direct buffers). */
    public ResponseEncoder encoder() {
        return encoder;
    }

    /** The call queues and handlers calls are dispatched to. */
    public RpcScheduler scheduler() {
        return scheduler;
    }

    /** Per-method call counts and latencies. */
    public RpcMetrics metrics() {
        return metrics;
    }

    /** Calls taken and not yet answered. */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Waits until every call taken has been answered, at most {@code timeoutSeconds}, woken by the last
     * answer; logs how many were not. Call it once the server is stopping (the flag the intake was given
     * is true: only then does an answer wake it). Returns at once when the thread is interrupted (keeping
     * its interrupt).
     */
    public void awaitAnswered(long timeoutSeconds) {
        long left = TimeUnit.SECONDS.toNanos(timeoutSeconds);
        answeredLock.lock();
        try {
            while (inFlight.get() > 0 && left > 0) {
                left = allAnswered.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            answeredLock.unlock();
        }
        if (inFlight.get() > 0) {
            log.accept(inFlight.get() + " calls still unanswered at stop");
        }
    }
}
