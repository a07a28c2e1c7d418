package org.heaplab.rpc.simple;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.buffers.ResponseEncoder;
import org.heaplab.rpc.protocol.CellDecoder;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RequestIntake;
import org.heaplab.rpc.server.RpcCall;
import org.heaplab.rpc.server.RpcMemory;
import org.heaplab.rpc.server.RpcMetrics;
import org.heaplab.rpc.server.RpcScheduler;
import org.heaplab.rpc.server.RpcServer;
import org.heaplab.rpc.server.RpcService;

/**
 * HBase 1.x's RPC server (SimpleRpcServer): NIO selectors and a handful of threads, whatever the number
 * of connections.
 *
 * <pre>
 *   Listener ──accept──▶ Reader x hbase.ipc.server.read.threadpool.size (own selector each,
 *   (backlog 128)         connections round-robin): preamble, frames into request buffers, decode
 *                             │ RpcCall
 *                             ▼
 *                         RpcScheduler: call queues ──▶ handler x hbase.regionserver.handler.count
 *                             │ full: SERVER_BUSY         run the service, write the response inline
 *                                                          │ socket would block
 *                                                          ▼
 *                                                        Responder (own selector): the rest, in order
 * </pre>
 *
 * <p>The memory comes chosen ({@link RpcMemory}): the {@link RequestBufferAllocator} the readers read
 * bodies into (1.x heap byte[] per request, 2.x pooled direct buffers), the {@link CellDecoder} (copies or
 * views) and the {@link ResponseEncoder} (heap or pooled direct frames), and the two bounds.
 *
 * <p>Buffer ownership: a connection's reader allocates the request buffer and reads the body into it;
 * the {@link RpcCall} owns it from dispatch on and releases it after the response (and every hold). A
 * buffer still being read when its connection closes is released by the reader thread.
 *
 * <p>Bad input never kills the server: see engine/docs/wire-protocol.md (errors 1-4 and 12) for which
 * errors keep the connection open.
 *
 * <p>Thread safety: start and stop may be called from any thread, once each.
 */
public final class SimpleRpcServer implements RpcServer {
    public static final String READER_COUNT_KEY = "hbase.ipc.server.read.threadpool.size";
    public static final int DEFAULT_READER_COUNT = 10;
    /** Responses a client has not read for this long close its connection (HBase's key and default). */
    public static final String PURGE_TIMEOUT_KEY = "hbase.ipc.client.call.purge.timeout";
    public static final long DEFAULT_PURGE_TIMEOUT_MS = 120_000;
    private static final int BACKLOG = 128;

    private final InetSocketAddress bindAddress;
    private final Consumer<String> log;
    private final RpcMemory memory;
    private final int readerCount;
    private final long purgeNanos;
    private final ReceivingBytes receiving;
    private final RpcScheduler scheduler;
    /** Holds the decoder, the encoder, the scheduler and the metrics ({@link RpcServer}'s getters read them). */
    private final RequestIntake intake;
    private final Set<SimpleConnection> connections = ConcurrentHashMap.newKeySet();
    /** Responses a handler could not write without blocking, finished by the Responder. */
    final LongAdder responderHandoffs = new LongAdder();
    /** The connections whose responses wait for the Responder (stop waits for none). */
    private final ResponseBacklog backlog = new ResponseBacklog();
    private final List<Reader> readers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;
    private ServerSocketChannel serverChannel;
    private Selector acceptSelector;
    private Responder responder;
    private Thread listener;
    private Thread responderThread;

    /**
     * @param bindAddress host and port to listen on (port 0 picks a free one)
     * @param conf reads hbase.ipc.server.read.threadpool.size, hbase.ipc.client.call.purge.timeout,
     *     heaplab.ipc.server.max.receiving.bytes and the {@link RpcScheduler}'s keys
     * @param memory the request buffers, cell decoder, response encoder and the request size and read
     *     timeout bounds, chosen once ({@link RpcMemory#fromConf})
     * @param log receives one line per connection-level problem
     */
    public SimpleRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, RpcMemory memory,
                           Consumer<String> log) {
        this.bindAddress = bindAddress;
        this.log = log;
        this.memory = memory;
        this.readerCount = conf.getInt(READER_COUNT_KEY, DEFAULT_READER_COUNT);
        if (readerCount < 1) {
            throw new ConfigurationException(READER_COUNT_KEY + " must be at least 1, got " + readerCount);
        }
        long purgeMs = conf.getLong(PURGE_TIMEOUT_KEY, DEFAULT_PURGE_TIMEOUT_MS);
        if (purgeMs < 1) {
            throw new ConfigurationException(PURGE_TIMEOUT_KEY + " must be at least 1 ms, got " + purgeMs);
        }
        this.purgeNanos = TimeUnit.MILLISECONDS.toNanos(purgeMs);
        long maxReceivingBytes = conf.getLong(RpcConstants.MAX_RECEIVING_BYTES_KEY, Runtime.getRuntime().maxMemory() / 4);
        if (maxReceivingBytes < RpcConstants.MIN_REQUEST_BODY) {
            throw new ConfigurationException(RpcConstants.MAX_RECEIVING_BYTES_KEY + " must be at least "
                + RpcConstants.MIN_REQUEST_BODY + " bytes, got " + maxReceivingBytes);
        }
        this.receiving = new ReceivingBytes(maxReceivingBytes);
        RpcMetrics metrics = new RpcMetrics();
        this.scheduler = new RpcScheduler(conf, service, metrics, log);
        this.intake = new RequestIntake(memory.cellDecoder(), memory.responseEncoder(), metrics, scheduler, log,
            () -> stopping);
    }

    @Override
    public synchronized void start() throws IOException {
        if (serverChannel != null) {
            throw new IllegalStateException("already started");
        }
        ServerSocketChannel ss = ServerSocketChannel.open();
        try {
            ss.socket().setReuseAddress(true);
            ss.bind(bindAddress, BACKLOG);
            ss.configureBlocking(false);
            acceptSelector = Selector.open();
            ss.register(acceptSelector, SelectionKey.OP_ACCEPT);
            for (int i = 0; i < readerCount; i++) {
                readers.add(new Reader(this));
            }
            responder = new Responder(this, purgeNanos);
        } catch (IOException e) {
            ss.close();
            throw e;
        }
        serverChannel = ss;
        scheduler.start();
        int port = port();
        for (int i = 0; i < readers.size(); i++) {
            threads.add(daemon(readers.get(i), "RpcServer.reader=" + i + ",port=" + port));
        }
        responderThread = daemon(responder, "RpcServer.responder,port=" + port);
        listener = daemon(this::listen, "RpcServer.listener,port=" + port);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** The Listener thread: accepts connections and deals them to the readers round-robin. */
    private void listen() {
        int next = 0;
        try {
            while (!stopping) {
                acceptSelector.select();
                acceptSelector.selectedKeys().clear();
                SocketChannel ch;
                while (!stopping && (ch = accept()) != null) {
                    Reader reader = readers.get(next++ % readers.size());
                    try {
                        ch.configureBlocking(false);
                        ch.socket().setTcpNoDelay(true);
                    } catch (IOException e) {
                        log.accept("cannot set up connection from " + ch.socket().getRemoteSocketAddress() + ": " + e.getMessage());
                        closeQuietly(ch);
                        continue;
                    }
                    SimpleConnection c = new SimpleConnection(ch, reader, this);
                    connections.add(c);
                    reader.add(c);
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!stopping) {
                log.accept("listener failed: " + e);
            }
        } finally {
            closeQuietly(acceptSelector);
            closeQuietly(serverChannel);
        }
    }

    private SocketChannel accept() {
        try {
            return serverChannel.accept();
        } catch (IOException e) {
            if (!stopping) {
                // e.g. too many open files: keep serving the open connections, and do not spin on the
                // pending connection the selector keeps reporting
                log.accept("accept failed: " + e.getMessage() + "; retrying in 100 ms");
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        }
    }

    /** A whole request frame from a reader: decoded and queued, or answered (the intake owns the buffer). */
    void process(SimpleConnection c, RequestBuffer buffer) {
        intake.take(c, buffer);
    }

    /**
     * Closes the listener, stops the readers, lets the handlers run and answer every queued call (and
     * waits up to 60 s for answers deferred to other threads), lets the Responder write what is
     * pending (up to 10 s), then closes every connection.
     */
    @Override
    public void stop() {
        synchronized (this) {
            if (stopping || serverChannel == null) {
                stopping = true;
                return;
            }
            stopping = true;
        }
        try {
            acceptSelector.wakeup();
            listener.join(5000);
            for (Reader r : readers) {
                r.shutdown();
            }
            for (Thread t : threads) {
                t.join(5000);
            }
            scheduler.stop(); // runs and answers every queued call
            intake.awaitAnswered(60);
            backlog.awaitEmpty(TimeUnit.SECONDS.toNanos(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SimpleConnection c : connections) {
            c.close();
        }
        responder.shutdown();
        try {
            responderThread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public int port() {
        return serverChannel.socket().getLocalPort();
    }

    @Override
    public String name() {
        return "SimpleRpcServer";
    }

    /** For the start-up log: the threads that move bytes, and the call queues. */
    @Override
    public String describe() {
        return name() + ", 1 listener, " + readerCount + " readers (" + READER_COUNT_KEY + "), 1 responder; "
            + scheduler.describe();
    }

    @Override
    public RequestIntake intake() {
        return intake;
    }

    /** The configured request buffers (1.x heap or 2.x pooled direct): the readers read bodies into them. */
    @Override
    public RequestBufferAllocator allocator() {
        return memory.requestBuffers();
    }

    /** Reader threads. */
    public int readerCount() {
        return readerCount;
    }

    /** Responses handed to the Responder because the socket would have blocked (the rest were written inline). */
    public long responderHandoffs() {
        return responderHandoffs.sum();
    }

    /** Open connections (tests). */
    public int connectionCount() {
        return connections.size();
    }

    boolean isStopping() {
        return stopping;
    }

    /** The bound on request bodies still arriving (the readers reserve their bodies' lengths from it). */
    ReceivingBytes receiving() {
        return receiving;
    }

    /** Bytes of request bodies still arriving now (tests: back to 0 once every connection is done). */
    public long receivingBytes() {
        return receiving.inUse();
    }

    long readTimeoutNanos() {
        return memory.readTimeoutNanos();
    }

    int maxRequestSize() {
        return memory.maxRequestSize();
    }

    Responder responder() {
        return responder;
    }

    ResponseBacklog backlog() {
        return backlog;
    }

    void log(String line) {
        log.accept(line);
    }

    void closed(SimpleConnection c) {
        connections.remove(c);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
