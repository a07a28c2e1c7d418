package org.heaplab.rpc.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * The call queues and handler threads behind every {@link RpcServer} (HBase's SimpleRpcScheduler with
 * its RpcExecutors): the server's readers dispatch decoded calls here, handlers run them.
 *
 * <pre>
 *   queues   n = max(1, round(handlers x hbase.ipc.server.callqueue.handler.factor))
 *   split    when hbase.ipc.server.callqueue.read.ratio r > 0 and n > 1 (HBase's RWQueueRpcExecutor):
 *              write queues   = max(1, n - max(1, round(n x r)))        read queues   = n - write queues
 *              write handlers = max(write queues, max(1, h - max(1, round(h x r))))
 *              read handlers  = max(read queues, h - max(1, h - max(1, round(h x r))))
 *            otherwise one group "all" of n queues and max(h, n) handlers (BalancedQueueRpcExecutor)
 *   capacity hbase.ipc.server.max.callqueue.length per queue (default handlers x 10)
 * </pre>
 *
 * Each handler serves one queue of its group (handler i takes queue i mod queues); a call goes to a
 * random queue of its group (HBase's default RandomQueueBalancer); writes are {@link RpcCall#isWrite}.
 * A full queue refuses the call ({@link #dispatch} returns false) and the server answers SERVER_BUSY:
 * a client's flood fills queues, not the server's memory, and never blocks a reader.
 *
 * <p>Thread safety: dispatch is called by every reader thread at once; start and stop once each.
 */
public final class RpcScheduler {
    public static final String HANDLER_FACTOR_KEY = "hbase.ipc.server.callqueue.handler.factor";
    public static final float DEFAULT_HANDLER_FACTOR = 0.1f;
    public static final String READ_RATIO_KEY = "hbase.ipc.server.callqueue.read.ratio";
    public static final float DEFAULT_READ_RATIO = 0f;

    /** One queue as the metrics endpoint shows it. */
    public record QueueStats(String kind, int handlers, int length, int capacity, long dispatched, long rejected) {
    }

    /** A queue slot that tells the one handler taking it to exit. */
    private static final RpcCall STOP = new RpcCall(null, null, null, null, null, null, null);

    private final RpcService service;
    private final Consumer<String> log;
    private final int handlerCount;
    private final List<CallQueue> queues = new ArrayList<>();
    /** Queue index ranges of the two groups (both the whole range when there is no split). */
    private final int writeFrom;
    private final int writeCount;
    private final int readFrom;
    private final int readCount;
    private final List<Thread> handlers = new ArrayList<>();
    private final LongAdder busyNanos = new LongAdder();
    private final AtomicInteger dispatching = new AtomicInteger();
    private volatile boolean stopped;
    private boolean started;

    /**
     * @param conf reads hbase.regionserver.handler.count, hbase.ipc.server.callqueue.handler.factor,
     *     hbase.ipc.server.callqueue.read.ratio and hbase.ipc.server.max.callqueue.length
     * @param metrics kept for the server's calls (the calls report to it themselves)
     * @throws ConfigurationException one line naming the key when a value is out of range
     */
    public RpcScheduler(Configuration conf, RpcService service, RpcMetrics metrics, Consumer<String> log) {
        this.service = service;
        this.log = log;
        int h = conf.getInt(RpcConstants.HANDLER_COUNT_KEY, RpcConstants.DEFAULT_HANDLER_COUNT);
        if (h < 1) {
            throw new ConfigurationException(RpcConstants.HANDLER_COUNT_KEY + " must be at least 1, got " + h);
        }
        float factor = conf.getFloat(HANDLER_FACTOR_KEY, DEFAULT_HANDLER_FACTOR);
        if (!(factor >= 0)) {
            throw new ConfigurationException(HANDLER_FACTOR_KEY + " must be 0 or more, got " + factor);
        }
        float ratio = conf.getFloat(READ_RATIO_KEY, DEFAULT_READ_RATIO);
        if (!(ratio >= 0 && ratio <= 1)) {
            throw new ConfigurationException(READ_RATIO_KEY + " must be between 0 and 1, got " + ratio);
        }
        int capacity = conf.getInt(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, h * RpcConstants.CALLQUEUE_PER_HANDLER);
        if (capacity < 1) {
            throw new ConfigurationException(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY + " must be at least 1, got " + capacity);
        }
        int n = numQueues(h, factor);
        if (ratio > 0 && n > 1) {
            int wq = writers(n, ratio);
            int wh = Math.max(wq, writers(h, ratio));
            int rq = n - wq;
            int rh = Math.max(rq, h - writers(h, ratio));
            addGroup("write", wq, wh, capacity);
            addGroup("read", rq, rh, capacity);
            writeFrom = 0;
            writeCount = wq;
            readFrom = wq;
            readCount = rq;
        } else {
            addGroup("all", n, Math.max(h, n), capacity);
            writeFrom = 0;
            writeCount = n;
            readFrom = 0;
            readCount = n;
        }
        int total = 0;
        for (CallQueue q : queues) {
            total += q.handlers;
        }
        this.handlerCount = total;
    }

    /** HBase's number of call queues: max(1, round(handlers x factor)). */
    static int numQueues(int handlers, float factor) {
        return Math.max(1, Math.round(handlers * factor));
    }

    /** HBase's RWQueueRpcExecutor.calcNumWriters: at least one writer, at least one reader's share kept. */
    static int writers(int count, float readRatio) {
        return Math.max(1, count - Math.max(1, Math.round(count * readRatio)));
    }

    /** {@code n} queues of one kind and {@code h} handlers spread over them (handler i serves queue i mod n). */
    private void addGroup(String kind, int n, int h, int capacity) {
        for (int i = 0; i < n; i++) {
            int served = h / n + (i < h % n ? 1 : 0);
            queues.add(new CallQueue(kind, served, capacity));
        }
    }

    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        int id = 0;
        for (int q = 0; q < queues.size(); q++) {
            CallQueue queue = queues.get(q);
            for (int i = 0; i < queue.handlers; i++) {
                Thread t = new Thread(() -> handle(queue),
                    "RpcServer.handler=" + id + ",queue=" + q + "," + queue.kind);
                t.setDaemon(true);
                handlers.add(t);
                id++;
                t.start();
            }
        }
    }

    /**
     * Queues {@code call} on a random queue of its group (writes: the write queues when split). After
     * {@link #stop} it answers SERVER_STOPPING itself and returns true.
     *
     * @return false when that queue is full: the caller answers SERVER_BUSY ({@link CallQueueTooBigException})
     */
    public boolean dispatch(RpcCall call) {
        dispatching.incrementAndGet();
        try {
            if (stopped) {
                call.failWith(ErrorCode.SERVER_STOPPING, "org.heaplab.rpc.server.ServerStoppingException",
                    "the server is stopping");
                return true;
            }
            boolean write = call.isWrite();
            int from = write ? writeFrom : readFrom;
            int count = write ? writeCount : readCount;
            CallQueue q = queues.get(from + (count == 1 ? 0 : ThreadLocalRandom.current().nextInt(count)));
            // counted before the offer: a handler may answer the call before offer() returns,
            // and a client that has its answer must find the call counted
            q.dispatched.increment();
            if (q.calls.size() < q.capacity && q.calls.offer(call)) {
                return true;
            }
            q.dispatched.decrement();
            q.rejected.increment();
            return false;
        } finally {
            dispatching.decrementAndGet();
        }
    }

    /** The handler loop: one queue, until a STOP slot. */
    private void handle(CallQueue queue) {
        while (true) {
            RpcCall call;
            try {
                call = queue.calls.take();
            } catch (InterruptedException e) {
                return;
            }
            if (call == STOP) {
                return;
            }
            long start = System.nanoTime();
            call.run(service);
            busyNanos.add(System.nanoTime() - start);
        }
    }

    /**
     * Takes no more calls, lets the handlers run every queued call and answer it, then stops them
     * (a call answered later by a completion callback may still be outstanding: the server waits for it).
     */
    public void stop() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
        }
        while (dispatching.get() > 0) {
            Thread.onSpinWait(); // a reader inside dispatch finishes its offer first
        }
        try {
            for (CallQueue q : queues) {
                for (int i = 0; i < q.handlers; i++) {
                    if (!q.calls.offer(STOP, 60, TimeUnit.SECONDS)) {
                        log.accept("call queue did not drain in 60 s; handlers interrupted");
                        handlers.forEach(Thread::interrupt);
                        return;
                    }
                }
            }
            for (Thread t : handlers) {
                t.join(60_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Handler threads in all (HBase may give a group more handlers than configured: one per queue at least). */
    public int handlerCount() {
        return handlerCount;
    }

    /** Every queue, write queues first. */
    public List<QueueStats> queues() {
        List<QueueStats> out = new ArrayList<>(queues.size());
        for (CallQueue q : queues) {
            out.add(new QueueStats(q.kind, q.handlers, q.calls.size(), q.capacity, q.dispatched.sum(), q.rejected.sum()));
        }
        return out;
    }

    /** Total time handlers spent running calls (in the service, not waiting for a call). */
    public long handlerBusyNanos() {
        return busyNanos.sum();
    }

    /** One line for the start-up log. */
    public String describe() {
        StringBuilder b = new StringBuilder(handlerCount + " handlers, " + queues.size() + " call queue(s)");
        if (readFrom != writeFrom) {
            b.append(" (").append(writeCount).append(" write, ").append(readCount).append(" read)");
        }
        return b.append(" of ").append(queues.get(0).capacity).append(" calls").toString();
    }

    private static final class CallQueue {
        final String kind;
        final int handlers;
        final int capacity;
        final BlockingQueue<RpcCall> calls;
        final LongAdder dispatched = new LongAdder();
        final LongAdder rejected = new LongAdder();

        CallQueue(String kind, int handlers, int capacity) {
            this.kind = kind;
            this.handlers = handlers;
            this.capacity = capacity;
            // + handlers: room for the STOP slots, so stop() never waits on a full queue of real calls
            this.calls = new ArrayBlockingQueue<>(capacity + handlers);
        }
    }
}
