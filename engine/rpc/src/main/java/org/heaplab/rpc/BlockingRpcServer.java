package org.heaplab.rpc;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.util.Futures;

/**
 * The HBase 1.x-style blocking RPC server: one acceptor thread, one reader thread per connection,
 * a bounded call queue, and hbase.regionserver.handler.count handler threads.
 *
 * <pre>
 *   acceptor ──accept──▶ reader (per connection) ──Call──▶ [call queue] ──▶ handler x N ──▶ socket
 *                        reads each request into a        bounded           run the RpcService,
 *                        FRESH heap byte[]                                  write the response
 * </pre>
 *
 * <p>Two switches, chosen once at construction from the configuration: the {@link RequestBufferAllocator}
 * (1.x {@link HeapRequestBuffers}: a fresh heap byte[] per request, the garbage whose young-GC cost the
 * labs measure; 2.x {@link PooledDirectRequestBuffers}) and the {@link CellDecoder} (1.x copies each cell,
 * 2.x decodes views over the request buffer).
 *
 * <p>Buffer ownership: the connection's reader allocates the request buffer and hands it with the call to
 * a handler, which releases it after writing the response (the reader releases it itself when the call
 * is refused or undecodable). A request spanning several pooled segments (over 65 KB) is copied into one
 * heap buffer for decoding.
 *
 * <p>Bad input never kills the server: a frame that is well delimited but undecodable (unknown
 * method, bad params, bad cells) gets an error response and the connection stays open; a frame whose
 * length is out of range (oversized: REQUEST_TOO_BIG, or shorter than a header) and a bad preamble
 * get an error response and the connection is closed, since framing can no longer be trusted; a
 * truncated frame (peer closes mid-frame) closes the connection.
 *
 * <p>Backpressure: when the call queue is full a reader blocks, so a connection stops being read
 * until handlers catch up (HBase 1.x instead rejects with CallQueueTooBigException).
 *
 * <p>Responses: a handler runs the service with the call as a {@link ServerCall}; the service answers
 * at once (the usual case) or later from another thread (a completion callback: the staged write
 * path), and may hold the request buffer past its response ({@link ServerCall#holdRequestUntil}).
 * The third switch, the {@link ResponseEncoder} (1.x {@link HeapResponseEncoder}: a heap byte[] per
 * response; 2.x {@link PooledDirectResponseEncoder}: pooled direct buffers), encodes the OK frame; the
 * connection writes it with one gathering channel write, gives pooled buffers back, and only then closes
 * what the call registered with {@link ServerCall#closeAfterResponse} (a read's cache block references).
 *
 * <p>Thread safety: start and stop may be called from any thread; responses for one connection are
 * written by many threads, serialised by the connection's output lock, each frame in one write.
 */
public final class BlockingRpcServer implements RpcServer {
    private final Call poison = new Call(null, null, null);

    private final InetSocketAddress bindAddress;
    private final RpcService service;
    private final int handlerCount;
    private final int maxRequestSize;
    private final BlockingQueue<Call> queue;
    private final Consumer<String> log;
    private final RequestBufferAllocator allocator;
    private final CellDecoder decoder;
    private final ResponseEncoder encoder;
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final List<Thread> handlers = new ArrayList<>();
    /** Calls queued and not yet finished (answered and their buffer released). */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean stopping;
    private ServerSocketChannel serverSocket;
    private Thread acceptor;

    /**
     * @param bindAddress host and port to listen on (port 0 picks a free one)
     * @param conf reads hbase.regionserver.handler.count, hbase.ipc.max.request.size and
     *     hbase.ipc.server.max.callqueue.length
     * @param log receives one line per connection-level problem
     */
    public BlockingRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, Consumer<String> log) {
        this(bindAddress, service, conf, log,
            RequestBufferAllocators.fromConf(conf, conf.getInt(RpcConstants.HANDLER_COUNT_KEY, RpcConstants.DEFAULT_HANDLER_COUNT), log),
            RequestBufferAllocators.cellDecoder(conf), null);
    }

    /** As below with heap responses (1.x), whatever the request buffers. */
    public BlockingRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, Consumer<String> log,
                             RequestBufferAllocator allocator, CellDecoder decoder) {
        this(bindAddress, service, conf, log, allocator, decoder, HeapResponseEncoder.INSTANCE);
    }

    /**
     * As above with the request-buffer, cell-decoding and response paths given (tests; a null encoder is
     * chosen from the configuration); the configured ones are chosen by {@link RequestBufferAllocators}
     * and {@link ResponseEncoders} once, here, never per call.
     */
    public BlockingRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, Consumer<String> log,
                             RequestBufferAllocator allocator, CellDecoder decoder, ResponseEncoder encoder) {
        this.allocator = allocator;
        this.encoder = encoder != null ? encoder : ResponseEncoders.fromConf(conf, allocator);
        this.decoder = decoder;
        this.bindAddress = bindAddress;
        this.service = service;
        this.log = log;
        this.handlerCount = conf.getInt(RpcConstants.HANDLER_COUNT_KEY, RpcConstants.DEFAULT_HANDLER_COUNT);
        this.maxRequestSize = conf.getInt(RpcConstants.MAX_REQUEST_SIZE_KEY, RpcConstants.DEFAULT_MAX_REQUEST_SIZE);
        int queueLength = conf.getInt(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, handlerCount * RpcConstants.CALLQUEUE_PER_HANDLER);
        if (handlerCount < 1) {
            throw new IllegalArgumentException(RpcConstants.HANDLER_COUNT_KEY + " must be at least 1, got " + handlerCount);
        }
        if (maxRequestSize < RpcConstants.MIN_REQUEST_BODY) {
            throw new IllegalArgumentException(RpcConstants.MAX_REQUEST_SIZE_KEY + " too small: " + maxRequestSize);
        }
        this.queue = new ArrayBlockingQueue<>(Math.max(1, queueLength));
    }

    @Override
    public synchronized void start() throws IOException {
        if (serverSocket != null) {
            throw new IllegalStateException("already started");
        }
        // a channel (in blocking mode) so that responses can be written with one gathering write
        ServerSocketChannel ss = ServerSocketChannel.open();
        ss.socket().setReuseAddress(true);
        try {
            ss.bind(bindAddress, 128);
        } catch (IOException e) {
            ss.close();
            throw e;
        }
        serverSocket = ss;
        for (int i = 0; i < handlerCount; i++) {
            Thread t = new Thread(this::handle, "RpcServer.handler-" + i);
            t.setDaemon(true);
            handlers.add(t);
            t.start();
        }
        acceptor = new Thread(this::accept, "RpcServer.acceptor-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @Override
    public int port() {
        return serverSocket.socket().getLocalPort();
    }

    public int handlerCount() {
        return handlerCount;
    }

    /** Where request bodies are read (its counters: heap vs pooled bytes). */
    public RequestBufferAllocator allocator() {
        return allocator;
    }

    public CellDecoder cellDecoder() {
        return decoder;
    }

    public ResponseEncoder responseEncoder() {
        return encoder;
    }

    private void accept() {
        while (!stopping) {
            Socket s;
            SocketChannel ch;
            try {
                ch = serverSocket.accept();
                s = ch.socket();
            } catch (IOException e) {
                if (!stopping) {
                    log.accept("accept failed: " + e.getMessage());
                }
                continue;
            }
            try {
                s.setTcpNoDelay(true);
                ServerConnection c = new ServerConnection(ch);
                connections.add(c);
                if (stopping) {
                    c.close();
                    continue;
                }
                Thread reader = new Thread(() -> read(c), "RpcServer.reader-" + s.getRemoteSocketAddress());
                reader.setDaemon(true);
                c.reader = reader;
                reader.start();
            } catch (IOException e) {
                log.accept("cannot set up connection from " + s.getRemoteSocketAddress() + ": " + e.getMessage());
                closeQuietly(s);
            }
        }
    }

    /** The reader loop of one connection. */
    private void read(ServerConnection c) {
        try {
            DataInputStream in = new DataInputStream(new BufferedInputStream(c.socket.getInputStream(), 16 * 1024));
            byte[] scratch = new byte[16 * 1024]; // this reader's staging array for direct buffers, reused
            try {
                FrameReader.readPreamble(in);
            } catch (MalformedFrameException e) {
                c.send(FrameWriter.error(e.callId(), e.code(), e.getClass().getName(), e.getMessage()));
                c.closeAfterError(in);
                return;
            }
            while (true) {
                int length = in.readInt();
                if (length < RpcConstants.MIN_REQUEST_BODY) {
                    c.send(FrameWriter.error(RpcConstants.NO_CALL_ID, ErrorCode.MALFORMED_REQUEST,
                        MalformedFrameException.class.getName(), "frame length " + length + " is below the "
                            + RpcConstants.MIN_REQUEST_BODY + "-byte request header; closing the connection"));
                    c.closeAfterError(in);
                    return;
                }
                if (length > maxRequestSize) {
                    int callId = in.readInt();
                    c.send(FrameWriter.error(callId, ErrorCode.REQUEST_TOO_BIG, "org.heaplab.rpc.RequestTooBigException",
                        "request of " + length + " bytes exceeds " + RpcConstants.MAX_REQUEST_SIZE_KEY + " ("
                            + maxRequestSize + "); closing the connection"));
                    log.accept("closing " + c.socket.getRemoteSocketAddress() + ": request of " + length
                        + " bytes exceeds " + RpcConstants.MAX_REQUEST_SIZE_KEY);
                    c.closeAfterError(in);
                    return;
                }
                // 1.x: a fresh heap byte[]; 2.x: pooled direct buffers. Released after the response.
                RequestBuffer buffer = allocator.allocate(length);
                boolean queued = false;
                try {
                    buffer.readFully(in, scratch);
                    Request request;
                    try {
                        request = FrameReader.readRequest(buffer.contiguous(), decoder);
                    } catch (MalformedFrameException e) {
                        c.send(FrameWriter.error(e.callId(), e.code(), e.getClass().getName(), e.getMessage()));
                        continue;
                    }
                    if (stopping) {
                        c.send(FrameWriter.error(request.callId(), ErrorCode.SERVER_STOPPING,
                            "org.heaplab.rpc.ServerStoppingException", "the region server is stopping"));
                        continue;
                    }
                    inFlight.incrementAndGet();
                    try {
                        queue.put(new Call(c, request, buffer));
                        queued = true;
                    } finally {
                        if (!queued) {
                            inFlight.decrementAndGet();
                        }
                    }
                } finally {
                    if (!queued) {
                        buffer.release();
                    }
                }
            }
        } catch (EOFException e) {
            // peer closed (possibly mid-frame): nothing to answer
        } catch (IOException e) {
            if (!stopping && !c.closed) {
                log.accept("connection " + c.socket.getRemoteSocketAddress() + " failed: " + e.getMessage());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (!stopping) {
                c.close(); // in-flight responses to a vanished client are dropped
            }
        }
    }

    /**
     * The handler loop: take a call and run it. The service answers through the call, usually before
     * returning; a deferred answer (a completion callback on another thread) is sent by that thread.
     */
    private void handle() {
        while (true) {
            Call call;
            try {
                call = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (call == poison) {
                return;
            }
            try {
                service.call(call.request, call);
            } catch (Throwable t) { // a service that broke the no-throw contract: answer anyway
                call.fail(t);
            }
        }
    }

    @Override
    public void stop() {
        synchronized (this) {
            if (stopping || serverSocket == null) {
                stopping = true;
                return;
            }
            stopping = true;
        }
        closeQuietly(serverSocket);
        for (ServerConnection c : connections) {
            c.shutdownInput();
        }
        try {
            acceptor.join(5000);
            for (ServerConnection c : connections) {
                if (c.reader != null) {
                    c.reader.join(5000);
                }
            }
            for (int i = 0; i < handlers.size(); i++) {
                if (!queue.offer(poison, 60, TimeUnit.SECONDS)) {
                    log.accept("call queue did not drain; handlers interrupted");
                    handlers.forEach(Thread::interrupt);
                    break;
                }
            }
            for (Thread h : handlers) {
                h.join(60_000);
            }
            // calls answered later by a completion callback (deferred responses)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (inFlight.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            if (inFlight.get() > 0) {
                log.accept(inFlight.get() + " calls still unanswered at stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ServerConnection c : connections) {
            c.close();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    /**
     * A queued request, the buffer it was decoded over and its connection; answered once, by whichever
     * thread calls {@link #reply} or {@link #fail}. The buffer is released after the response is
     * written and every hold completed.
     */
    private final class Call implements ServerCall {
        final ServerConnection connection;
        final Request request;
        final RequestBuffer buffer;
        private final java.util.concurrent.atomic.AtomicBoolean answered = new java.util.concurrent.atomic.AtomicBoolean();
        private final List<CompletableFuture<?>> holds = new CopyOnWriteArrayList<>();
        private final List<AutoCloseable> afterResponse = new CopyOnWriteArrayList<>();

        Call(ServerConnection connection, Request request, RequestBuffer buffer) {
            this.connection = connection;
            this.request = request;
            this.buffer = buffer;
        }

        @Override
        public void holdRequestUntil(CompletableFuture<?> f) {
            holds.add(f);
        }

        @Override
        public void closeAfterResponse(AutoCloseable resource) {
            afterResponse.add(resource);
            if (answered.get() && afterResponse.remove(resource)) {
                closeQuietly(resource); // registered too late: the response is gone already
            }
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
            answer(frame);
        }

        @Override
        public void fail(Throwable t) {
            if (!(t instanceof IOException) && !(t instanceof IllegalArgumentException)) {
                log.accept("call " + request.method() + " failed: " + t);
            }
            answer(ResponseFrame.onHeap(FrameWriter.response(ErrorMapping.toResponse(request.callId(), t))));
        }

        private void answer(ResponseFrame frame) {
            if (!answered.compareAndSet(false, true)) {
                frame.release();
                return; // answered already: the contract allows one answer
            }
            // the frame is a copy: the request buffer may go back before it is sent, so that a client's
            // next request (sent once it has this answer) can reuse it
            boolean held = false;
            for (CompletableFuture<?> h : holds) {
                held |= !h.isDone();
            }
            if (!held) {
                buffer.release();
            }
            try {
                connection.send(frame);
            } finally {
                closeAfterResponse(); // after the write: the frame no longer reads the cells' memory
                if (held) {
                    Futures.allSettled(holds).whenComplete((v, e) -> release());
                } else {
                    inFlight.decrementAndGet(); // last: stop() waits for it before closing connections
                }
            }
        }

        private void closeAfterResponse() {
            for (AutoCloseable r : afterResponse) {
                if (afterResponse.remove(r)) {
                    closeQuietly(r);
                }
            }
        }

        private void release() {
            buffer.release(); // the request's cells are dead from here on
            inFlight.decrementAndGet();
        }
    }

    /**
     * One accepted socket (a blocking channel: the reader reads through its stream, handlers write
     * through the channel). send() is called by many handlers; the lock keeps frames whole.
     */
    private final class ServerConnection {
        final SocketChannel channel;
        final Socket socket;
        private final Object writeLock = new Object();
        volatile boolean closed;
        volatile Thread reader;

        ServerConnection(SocketChannel channel) {
            this.channel = channel;
            this.socket = channel.socket();
        }

        void send(byte[] frame) {
            send(ResponseFrame.onHeap(frame));
        }

        /**
         * Writes the frame with gathering writes (all of its buffers in one call while the socket takes
         * them), then releases it (pooled buffers back to the pool), written or not.
         */
        void send(ResponseFrame frame) {
            try {
                synchronized (writeLock) {
                    if (closed) {
                        return;
                    }
                    try {
                        ByteBuffer[] buffers = frame.buffers();
                        long left = frame.remaining();
                        while (left > 0) {
                            left -= channel.write(buffers);
                        }
                    } catch (IOException e) {
                        close();
                    }
                }
            } finally {
                frame.release();
            }
        }

        /**
         * Ends a connection whose framing is lost, after its error response: half-closes our side so
         * the error arrives before the FIN, discards what the peer still sends (bounded to two
         * seconds, so unread input does not turn the close into a reset that loses the error), then
         * closes.
         */
        void closeAfterError(DataInputStream in) {
            try {
                socket.shutdownOutput();
                socket.setSoTimeout(250);
                byte[] sink = new byte[8192];
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (System.nanoTime() < deadline && !stopping) {
                    try {
                        if (in.read(sink) < 0) {
                            break;
                        }
                    } catch (java.net.SocketTimeoutException e) {
                        // keep draining until the deadline
                    }
                }
            } catch (IOException ignored) {
                // the peer is gone
            }
            close();
        }

        void shutdownInput() {
            try {
                socket.shutdownInput();
            } catch (IOException ignored) {
                // already closed
            }
        }

        void close() {
            closed = true;
            connections.remove(this);
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
