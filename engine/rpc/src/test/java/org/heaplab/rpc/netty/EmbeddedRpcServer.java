package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcMemory;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;

/**
 * A NettyRpcServer that is never bound, and EmbeddedChannels carrying the same three handlers its
 * accepted connections get (preamble, frame, request decoder), so the handlers run on the test thread
 * with no socket. The server's scheduler hands every call it dispatches to the test ({@link #nextCall}),
 * which answers it on its own thread: the channel is only ever touched by the test thread.
 *
 * <p>{@link #close} stops the scheduler and checks that every request frame and pooled response was
 * given back and that Netty's leak detector (PARANOID while the fixture lives) reported nothing.
 */
final class EmbeddedRpcServer implements AutoCloseable {
    static final int MAX_REQUEST = 1024;

    /** What a handler thread took from the call queue: the decoded request and the call to answer. */
    record Dispatched(Request request, ServerCall call) {
    }

    final List<String> log = new CopyOnWriteArrayList<>();
    final NettyRpcServer server;
    private final BlockingQueue<Dispatched> dispatched = new LinkedBlockingQueue<>();
    private final ResourceLeakDetector.Level previousLevel = ResourceLeakDetector.getLevel();

    /** One handler, requests up to {@link #MAX_REQUEST} bytes; {@code pooled}: 2.x pooled responses and zero-copy cells. */
    static Configuration conf(boolean pooled) {
        return new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "1")
            .set(RpcConstants.MAX_REQUEST_SIZE_KEY, Integer.toString(MAX_REQUEST))
            .set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, Boolean.toString(pooled));
    }

    EmbeddedRpcServer(Configuration conf) {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID); // every pooled and direct ByteBuf tracked
        RecordingLeakDetector.clear();
        RpcService service = new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("calls are answered by the test");
            }

            @Override
            public void call(Request request, ServerCall call) {
                dispatched.add(new Dispatched(request, call));
            }
        };
        server = new NettyRpcServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service, conf,
            RpcMemory.fromConf(conf, log::add), log::add);
    }

    /** Starts the scheduler's handler threads (without them dispatched calls wait in the call queue). */
    EmbeddedRpcServer startHandlers() {
        server.scheduler().start();
        return this;
    }

    /** A new connection: an active EmbeddedChannel with the server's connection pipeline. */
    EmbeddedChannel connect() {
        return new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                NettyConnection c = new NettyConnection(ch);
                ch.pipeline().addLast("preamble", new PreambleDecoder(c));
                ch.pipeline().addLast("frame", new FrameDecoder(c, MAX_REQUEST, TimeUnit.SECONDS.toNanos(30), log::add));
                ch.pipeline().addLast("request", new RequestDecoder(c, server));
            }
        });
    }

    /** The next call a handler took from the queue; fails after 10 s. */
    Dispatched nextCall() throws InterruptedException, TimeoutException {
        Dispatched d = dispatched.poll(10, TimeUnit.SECONDS);
        if (d == null) {
            throw new TimeoutException("no call dispatched within 10 s; log: " + log);
        }
        return d;
    }

    /** True when no call reached a handler (after giving a dispatched one {@code millis} to arrive). */
    boolean noCallWithin(long millis) throws InterruptedException {
        return dispatched.poll(millis, TimeUnit.MILLISECONDS) == null;
    }

    /** Every frame the server wrote to {@code ch} so far, decoded; each written ByteBuf released (and checked to be). */
    static List<Response> responses(EmbeddedChannel ch) throws IOException {
        List<Response> out = new ArrayList<>();
        Object msg;
        while ((msg = ch.readOutbound()) != null) {
            ByteBuf b = (ByteBuf) msg;
            try {
                int length = b.readInt();
                assertEquals(length, b.readableBytes(), "one whole frame per write");
                byte[] body = new byte[length];
                b.readBytes(body);
                out.add(FrameReader.readResponse(body));
            } finally {
                assertTrue(b.release(), "the written frame's last reference");
            }
        }
        return out;
    }

    /** The only frame written to {@code ch} so far. */
    static Response onlyResponse(EmbeddedChannel ch) throws IOException {
        List<Response> all = responses(ch);
        assertEquals(1, all.size(), () -> "responses: " + all);
        assertNotNull(all.get(0));
        return all.get(0);
    }

    /** Stops the scheduler, then fails when a request frame, a pooled response or any tracked ByteBuf was not released. */
    @Override
    public void close() throws Exception {
        try {
            server.scheduler().stop(); // without started handlers: queues the stop slots, nothing to join
            assertEquals(0, server.requestBuffers().outstanding(), "request frames never released");
            server.requestBuffers().checkNoLeaks();
            assertEquals(0, server.responseBuffers().outstanding(), "pooled response buffers never released");
            assertEquals(List.of(), RecordingLeakDetector.collectLeaks(), "Netty's leak detector reported leaks");
            assertTrue(dispatched.isEmpty(), () -> "calls left unanswered: " + dispatched);
        } finally {
            ResourceLeakDetector.setLevel(previousLevel);
        }
    }
}
