package org.heaplab.rpc.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
 * The HBase 2.x RPC server (HBASE-17263): Netty event loops replace SimpleRpcServer's listener, reader
 * and responder threads; the call queues and handlers are the same {@link RpcScheduler}.
 *
 * <pre>
 *   event loop (epoll or NIO, hbase.netty.worker.count of them; each owns many connections)
 *     socket ─▶ PreambleDecoder ─▶ FrameDecoder ─▶ RequestDecoder ──RpcCall──▶ RpcScheduler queues
 *               "HLAB"+1, then     int32 length,     frame stays in its            │
 *               removes itself     retained slice    pooled ByteBuf                ▼
 *                                  (no copy)         (RequestBuffer)           handler x N: runs the service
 *     socket ◀──────────────── writeAndFlush, carried out on the event loop ◀─ RpcCall.reply / fail
 * </pre>
 *
 * Compared with SimpleRpcServer: the event loops do the readers' job (decode and dispatch) and the
 * responder's: every response is written by its connection's event loop (a handler's writeAndFlush
 * becomes a task there), where SimpleRpcServer's handler writes inline and hands only what the socket
 * would not take to the Responder. Requests are read into Netty's pooled direct ByteBufs and decoded in
 * place; epoll replaces the JDK selector where the native library loads. Which is faster is what lab 05
 * measures.
 *
 * <p>Buffers: each request frame is a retained slice of Netty's pooled cumulation buffer, wrapped as a
 * {@link RequestBuffer} by {@link NettyRequestBuffers} and decoded by the configured {@link CellDecoder}
 * (copies: 1.x; views: 2.x). The {@link RpcCall} releases it once, after its response and every hold.
 * OK responses are encoded by the configured {@link ResponseEncoder} (heap byte[] or pooled direct
 * buffers, exactly as SimpleRpcServer, so only the transport differs between the two) and handed to
 * Netty without a copy; Netty releases them after the write ({@link ResponseFrameBufs}).
 *
 * <p>The request-buffer switch does not apply here: hbase.server.allocator.pool.enabled, which chooses
 * SimpleRpcServer's request buffers ({@code HeapRequestBuffers} or {@code DirectBufferPool}, in the
 * {@link RpcMemory}), leaves this server's requests where Netty read them (as HBase 2's NettyRpcServer,
 * which decodes a request from its ByteBuf); here it picks only the response buffers and the default cell
 * decoder. So with the switch off (1.x: a heap byte[] per request on SimpleRpcServer)
 * this server still reads requests into Netty's pooled, normally direct, buffers. {@link #describe()} says
 * so in the start-up line, with the key's value.
 *
 * <p>Errors: the same as SimpleRpcServer (engine/docs/wire-protocol.md): bad preamble, frame length below
 * the header or above hbase.ipc.max.request.size: error frame, half-close, drain, close; undecodable
 * frame: error, connection open; full queue: SERVER_BUSY; a frame cut short by the peer: closed silently.
 *
 * <p>Backpressure: a connection whose unwritten responses pass hbase.server.netty.writable.watermark.high
 * bytes (a client that sends without reading; 2 MB) stops being read until they drain below the low mark.
 *
 * <p>Thread safety: start and stop may be called from any thread, once each.
 */
public final class NettyRpcServer implements RpcServer {
    /** Unwritten response bytes of one connection above which it is no longer read (0: never paused). */
    public static final String WRITABLE_HIGH_WATERMARK_KEY = "hbase.server.netty.writable.watermark.high";
    /** ... and below which it is read again. */
    public static final String WRITABLE_LOW_WATERMARK_KEY = "hbase.server.netty.writable.watermark.low";
    /** Ours: 2 MB / 1 MB (HBase's default 0 leaves a client that does not read unbounded). */
    static final int DEFAULT_WRITE_HIGH_WATER = 2 * 1024 * 1024;
    static final int DEFAULT_WRITE_LOW_WATER = 1024 * 1024;

    private final InetSocketAddress bindAddress;
    private final Consumer<String> log;
    private final RpcMemory memory;
    private final int writeLowWater;
    private final int writeHighWater;
    private final RpcScheduler scheduler;
    /** Holds the decoder, the encoder, the scheduler and the metrics ({@link RpcServer}'s getters read them). */
    private final RequestIntake intake;
    private final NettyRequestBuffers requestBuffers;
    private final Set<NettyConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;
    private final NettyEventLoops loops;
    private EventLoopGroup group;
    private Channel serverChannel;

    /**
     * @param conf reads hbase.netty.worker.count, hbase.netty.nativetransport,
     *     hbase.server.netty.writable.watermark.low/high and the scheduler's keys
     * @param memory the response encoder, cell decoder and the request size and read timeout bounds,
     *     chosen once ({@link RpcMemory#fromConf}); its request buffers serve only the pooled responses here
     * @param log receives one line per connection-level problem
     * @throws ConfigurationException one line naming the key when a value is out of range
     */
    public NettyRpcServer(InetSocketAddress bindAddress, RpcService service, Configuration conf, RpcMemory memory,
                          Consumer<String> log) {
        this.bindAddress = bindAddress;
        this.log = log;
        this.memory = memory;
        this.writeHighWater = conf.getInt(WRITABLE_HIGH_WATERMARK_KEY, DEFAULT_WRITE_HIGH_WATER);
        this.writeLowWater = conf.getInt(WRITABLE_LOW_WATERMARK_KEY, Math.min(DEFAULT_WRITE_LOW_WATER, writeHighWater));
        if (writeHighWater < 0 || writeLowWater < 0 || (writeHighWater > 0 && writeLowWater > writeHighWater)) {
            throw new ConfigurationException(WRITABLE_LOW_WATERMARK_KEY + " (" + writeLowWater + ") and "
                + WRITABLE_HIGH_WATERMARK_KEY + " (" + writeHighWater + ") must be 0 <= low <= high (high 0: no backpressure)");
        }
        this.loops = NettyEventLoops.fromConf(conf);
        RpcMetrics metrics = new RpcMetrics();
        this.scheduler = new RpcScheduler(conf, service, metrics, log);
        this.requestBuffers = new NettyRequestBuffers(PooledByteBufAllocator.DEFAULT);
        // the response path as SimpleRpcServer's: pooled direct buffers of the memory's pool (2.x) or heap (1.x)
        this.intake = new RequestIntake(memory.cellDecoder(), memory.responseEncoder(), metrics, scheduler, log,
            () -> stopping);
    }

    @Override
    public synchronized void start() throws IOException {
        if (group != null) {
            throw new IllegalStateException("already started");
        }
        group = loops.newGroup();
        ServerBootstrap bootstrap = new ServerBootstrap()
            .group(group)
            .channel(loops.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 128)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childOption(ChannelOption.ALLOCATOR, requestBuffers.nettyAllocator())
            .childHandler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    NettyConnection c = new NettyConnection(ch);
                    ch.pipeline().addLast("preamble", new PreambleDecoder(c));
                    ch.pipeline().addLast("frame", new FrameDecoder(c, memory.maxRequestSize(), memory.readTimeoutNanos(), log));
                    ch.pipeline().addLast("request", new RequestDecoder(c, NettyRpcServer.this));
                }
            });
        if (writeHighWater > 0) {
            bootstrap.childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(writeLowWater, writeHighWater));
        }
        ChannelFuture bound = bootstrap.bind(bindAddress).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            group = null; // stop() has nothing to stop
            // as the JDK's ServerSocketChannel.bind: a BindException whatever the reason (port taken, no such address)
            BindException e = new BindException(bound.cause().getMessage());
            e.initCause(bound.cause());
            throw e;
        }
        serverChannel = bound.channel();
        scheduler.start();
    }

    /**
     * For the start-up log (the region server prints it): the transport (epoll or NIO, and why) and the
     * event loops, decided at construction; and that the request-buffer switch does not choose this
     * server's request buffers (class comment), so that nobody reads a heap-request configuration's
     * results as if requests had been on the heap.
     */
    @Override
    public String describe() {
        return name() + ", " + loops.description() + "; requests stay in Netty's pooled ByteBufs whatever "
            + RpcConstants.ALLOCATOR_POOL_ENABLED_KEY + " says (" + memory.poolEnabled()
            + " here: it picks only the response buffers and the default cell decoder)";
    }

    /** True when the server runs (or will run) on the native epoll transport; false: NIO. */
    public boolean isEpoll() {
        return loops.epoll();
    }

    /** Event-loop threads. */
    public int eventLoopCount() {
        return loops.threads();
    }

    @Override
    public int port() {
        return serverChannel == null ? -1 : ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    @Override
    public String name() {
        return "NettyRpcServer";
    }

    /** Where the request decoders hand every whole frame (shared with SimpleRpcServer's readers). */
    @Override
    public RequestIntake intake() {
        return intake;
    }

    /** Netty's frames, whatever hbase.server.allocator.pool.enabled says (see the class comment). */
    @Override
    public RequestBufferAllocator allocator() {
        return requestBuffers;
    }

    /** The same object as {@link #allocator()}, typed (tests check every frame was released). */
    public NettyRequestBuffers requestBuffers() {
        return requestBuffers;
    }

    /**
     * The memory's request buffers, which this server uses only for the responses the pooled encoder
     * writes into them (2.x; unused by heap responses): tests check they drain.
     */
    RequestBufferAllocator responseBuffers() {
        return memory.requestBuffers();
    }

    /** Open connections (tests). */
    public int connectionCount() {
        return connections.size();
    }

    /** Connections not being read because their unwritten responses passed the high-water mark (tests). */
    int pausedConnections() {
        int n = 0;
        for (NettyConnection c : connections) {
            n += c.channel().config().isAutoRead() ? 0 : 1;
        }
        return n;
    }

    /** True when a connection with too many unwritten responses stops being read (high watermark > 0). */
    boolean backpressure() {
        return writeHighWater > 0;
    }

    boolean isStopping() {
        return stopping;
    }

    Consumer<String> log() {
        return log;
    }

    void connectionOpened(NettyConnection c) {
        connections.add(c);
        if (stopping) {
            c.channel().close();
        }
    }

    void connectionClosed(NettyConnection c) {
        connections.remove(c);
    }

    /**
     * Stops accepting, stops reading, lets the handlers run every queued call and answer it (and waits for
     * calls answered later by a completion callback), flushes what is still unwritten, closes every
     * connection, then shuts the event loops down. Idempotent.
     */
    @Override
    public void stop() {
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
            if (group == null) {
                return;
            }
        }
        serverChannel.close().awaitUninterruptibly();
        for (NettyConnection c : connections) {
            c.channel().config().setAutoRead(false); // frames already read answer SERVER_STOPPING
        }
        scheduler.stop(); // runs and answers every queued call
        intake.awaitAnswered(60);
        List<ChannelFuture> closing = new ArrayList<>();
        for (NettyConnection c : connections) {
            // queued behind every response already sent: they are written first
            closing.add(c.channel().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE)
                .channel().closeFuture());
        }
        for (ChannelFuture f : closing) {
            f.awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
}
