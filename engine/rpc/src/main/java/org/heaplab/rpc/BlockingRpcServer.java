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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;

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
 * <p>Scheduling: calls go to the shared {@link RpcScheduler} (call queues and handler threads); a full
 * queue is answered with SERVER_BUSY ({@link CallQueueTooBigException}) and the reader goes on.
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
    private final InetSocketAddress bindAddress;
    private final RpcService service;
    private final int maxRequestSize;
    private final RpcMetrics metrics = new RpcMetrics();
    private final RpcScheduler scheduler;
    private final Consumer<String> log;
    private final RequestBufferAllocator allocator;
    private final CellDecoder decoder;
    private final ResponseEncoder encoder;
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    /** Calls queued and not yet finished (answered and their buffer released). */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean stopping;
    private ServerSocketChannel serverSocket;
    private Thread acceptor;

    /**
     * @param bindAddress host and port to listen on (port 0 picks a free one)
     * @param conf reads hbase.ipc.max.request.size and the {@link RpcScheduler}'s keys
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
        this.maxRequestSize = conf.getInt(RpcConstants.MAX_REQUEST_SIZE_KEY, RpcConstants.DEFAULT_MAX_REQUEST_SIZE);
        if (maxRequestSize < RpcConstants.MIN_REQUEST_BODY) {
            throw new IllegalArgumentException(RpcConstants.MAX_REQUEST_SIZE_KEY + " too small: " + maxRequestSize);
        }
        this.scheduler = new RpcScheduler(conf, service, metrics, log);
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
        scheduler.start();
        acceptor = new Thread(this::accept, "RpcServer.acceptor-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @Override
    public int port() {
        return serverSocket.socket().getLocalPort();
    }

    @Override
    public String name() {
        return "BlockingRpcServer";
    }

    @Override
    public int handlerCount() {
        return scheduler.handlerCount();
    }

    @Override
    public RpcScheduler scheduler() {
        return scheduler;
    }

    @Override
    public RpcMetrics metrics() {
        return metrics;
    }

    @Override
    public RequestBufferAllocator allocator() {
        return allocator;
    }

    @Override
    public CellDecoder cellDecoder() {
        return decoder;
    }

    @Override
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
                    RpcCall call = new RpcCall(c, request, buffer, encoder, metrics, log, inFlight::decrementAndGet);
                    queued = true; // the call owns the buffer from here on
                    if (!scheduler.dispatch(call)) {
                        call.fail(new CallQueueTooBigException("call queue is full (" + RpcConstants.MAX_CALLQUEUE_LENGTH_KEY
                            + "); back off and retry"));
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
        } finally {
            if (!stopping) {
                c.close(); // in-flight responses to a vanished client are dropped
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
            scheduler.stop(); // runs and answers every queued call
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
     * One accepted socket (a blocking channel: the reader reads through its stream, handlers write
     * through the channel). send() is called by many handlers; the lock keeps frames whole.
     */
    private final class ServerConnection implements CallTransport {
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
        @Override
        public void send(ResponseFrame frame) {
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

        @Override
        public boolean isOpen() {
            return !closed;
        }

        @Override
        public String remoteAddress() {
            return String.valueOf(socket.getRemoteSocketAddress());
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
