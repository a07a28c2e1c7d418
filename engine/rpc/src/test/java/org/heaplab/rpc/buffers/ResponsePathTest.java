package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;
import org.heaplab.rpc.server.TestMemory;
import org.heaplab.rpc.simple.SimpleRpcServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The response-path switch through a real server and client over a loopback socket: the 1.x heap
 * frame and the 2.x pooled direct frame carry the same bytes, and whatever a call registered with
 * closeAfterResponse (a read's cache scope) is closed exactly once, after the frame was written, on
 * every path: OK, error, a service that throws, an encoding failure, a vanished client.
 */
@Timeout(60)
class ResponsePathTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    private final List<String> log = new CopyOnWriteArrayList<>();

    /** A block of cache memory (direct) holding {@code cells}; cells served from it are views. */
    private static List<Cell> viewsOverDirectBlock(List<KeyValue> cells, ByteBuffer block) {
        List<Cell> views = new ArrayList<>();
        int pos = 0;
        for (KeyValue kv : cells) {
            block.put(pos, kv.getBuffer(), kv.getOffset(), kv.getLength());
            views.add(new ByteBufferKeyValue(block, pos, kv.getLength()));
            pos += kv.getLength();
        }
        return views;
    }

    /** Stands for a ReadScope: counts closes, and poisons the block as a cache reusing it would. */
    private static final class Scope implements AutoCloseable {
        final AtomicInteger closes = new AtomicInteger();
        final ByteBuffer block;
        final List<String> events;
        final String tag;

        Scope(ByteBuffer block, List<String> events) {
            this(block, events, "");
        }

        Scope(ByteBuffer block, List<String> events, String tag) {
            this.block = block;
            this.events = events;
            this.tag = tag;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            events.add("scope closed" + tag);
            if (block != null) {
                for (int i = 0; i < block.capacity(); i++) {
                    block.put(i, (byte) 0x5a);
                }
            }
        }
    }

    /** Wraps an encoder to record when a frame's buffers are given back (right after its write). */
    private static ResponseEncoder recording(ResponseEncoder inner, List<String> events) {
        return new ResponseEncoder() {
            @Override
            public ResponseFrame encode(int callId, byte[] params, List<? extends Cell> cells) {
                ResponseFrame f = inner.encode(callId, params, cells);
                return new RecordingFrame(f, events, " #" + callId).frame;
            }

            @Override
            public String describe() {
                return inner.describe();
            }
        };
    }

    /** A frame whose release is recorded: built over a pooled buffer whose release hook records first. */
    private static final class RecordingFrame {
        final ResponseFrame frame;

        RecordingFrame(ResponseFrame inner, List<String> events, String tag) {
            ByteBuffer[] bufs = inner.buffers();
            RequestBuffer rb = new RequestBuffer(bufs, (int) inner.remaining(), b -> {
                events.add("frame written and released" + tag);
                inner.release();
            });
            this.frame = ResponseFrame.pooled(rb);
        }
    }

    private SimpleRpcServer start(RpcService service, RequestBufferAllocator alloc, ResponseEncoder encoder) throws IOException {
        SimpleRpcServer s = new SimpleRpcServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service,
            new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "2"),
            TestMemory.of(alloc, ZeroCopyCellDecoder.INSTANCE, encoder), log::add);
        s.start();
        return s;
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "pooled"})
    void zeroCopyCellsAreWrittenBeforeTheScopeIsClosed(String path) throws Exception {
        DirectBufferPool pool = new DirectBufferPool(4096, 16, 512, false, true, log::add);
        ResponseEncoder base = path.equals("heap") ? HeapResponseEncoder.INSTANCE : new PooledDirectResponseEncoder(pool);
        List<String> events = new CopyOnWriteArrayList<>();
        List<KeyValue> expected = new ArrayList<>();
        for (int i = 0; i < 60; i++) { // about 8.5 KB: several 4 KB response buffers, values straddling them
            expected.add(FrameRoundTripTest.kv("row-" + i, "value-" + i + "-" + "v".repeat(100)));
        }
        List<Scope> scopes = new CopyOnWriteArrayList<>();
        RpcService service = new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("unused");
            }

            @Override
            public void call(Request request, ServerCall call) {
                ByteBuffer block = ByteBuffer.allocateDirect(16 * 1024);
                Scope scope = new Scope(block, events, " #" + request.callId());
                scopes.add(scope);
                call.closeAfterResponse(scope);
                call.reply(new Reply(new ParamWriter().writeInt(7).toByteArray(), viewsOverDirectBlock(expected, block)));
            }
        };
        SimpleRpcServer server = start(service, pool, recording(base, events));
        try (RpcConnection c = RpcConnection.open(HOST, server.port(), 5000, 10_000)) {
            for (int i = 0; i < 5; i++) {
                Response r = c.call(Method.GET, new byte[0], List.of());
                assertEquals(expected, r.cells(), "the bytes left before the block was poisoned");
                assertEquals(7, r.paramReader().readInt());
            }
        } finally {
            server.stop();
        }
        assertEquals(5, scopes.size());
        scopes.forEach(s -> assertEquals(1, s.closes.get(), "closed exactly once"));
        assertEquals(10, events.size(), events.toString());
        for (Scope s : scopes) { // per call (calls of one connection may interleave with the next one's)
            int written = events.indexOf("frame written and released" + s.tag);
            int closed = events.indexOf("scope closed" + s.tag);
            assertTrue(written >= 0 && written < closed, "the frame is written before its scope closes: " + events);
        }
        pool.checkNoLeaks();
        if (path.equals("pooled")) {
            assertTrue(pool.responsePoolBytes() > 5 * 8000L, "responses went into pooled buffers");
            assertEquals(0, pool.responseHeapBytes());
            assertEquals(0, pool.poolAllocationBytes() + pool.heapAllocationBytes() - 5 * 13L,
                "request counters see only the five 13-byte requests");
        }
    }

    @Test
    void theScopeIsClosedOnceOnEveryErrorPath() throws Exception {
        DirectBufferPool pool = new DirectBufferPool(4096, 16, 512, false, true, log::add);
        List<Scope> scopes = new CopyOnWriteArrayList<>();
        CountDownLatch clientGone = new CountDownLatch(1);
        CountDownLatch lateAnswered = new CountDownLatch(1);
        CountDownLatch sixCalls = new CountDownLatch(6);
        AtomicReference<SimpleRpcServer> running = new AtomicReference<>();
        AtomicBoolean closeSeenBeforeAnswer = new AtomicBoolean();
        RpcService service = new RpcService() {
            @Override
            public Reply call(Request request) {
                throw new AssertionError("unused");
            }

            @Override
            public void call(Request request, ServerCall call) {
                Scope scope = new Scope(null, new ArrayList<>());
                scopes.add(scope);
                sixCalls.countDown();
                call.closeAfterResponse(scope);
                switch (request.paramReader().hasRemaining() ? request.params()[0] : 0) {
                    case 1 -> call.fail(new IOException("storage failed"));
                    case 2 -> throw new IllegalStateException("a service bug"); // the server answers for it
                    case 3 -> call.reply(new Reply(new byte[0], List.of(new BrokenCell())));
                    case 4 -> {
                        call.reply(Reply.EMPTY);
                        call.reply(Reply.EMPTY); // a second answer is ignored
                        call.fail(new IOException("late"));
                    }
                    case 5 -> new Thread(() -> {
                        try {
                            clientGone.await();
                            // answer once the server has seen the client go, so that the reply meets a closed connection
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                            while (running.get().connectionCount() > 0 && System.nanoTime() < deadline) {
                                Thread.sleep(1);
                            }
                            closeSeenBeforeAnswer.set(running.get().connectionCount() == 0);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        call.reply(Reply.EMPTY); // the connection is closed by now
                        lateAnswered.countDown();
                    }).start();
                    default -> call.reply(Reply.EMPTY);
                }
            }
        };
        SimpleRpcServer server = start(service, pool, new PooledDirectResponseEncoder(pool));
        running.set(server);
        try {
            try (RpcConnection c = RpcConnection.open(HOST, server.port(), 5000, 10_000)) {
                assertEquals(ErrorCode.IO_ERROR, assertThrows(RemoteException.class,
                    () -> c.call(Method.GET, new byte[] {1}, List.of())).code());
                assertEquals(ErrorCode.SERVER_ERROR, assertThrows(RemoteException.class,
                    () -> c.call(Method.GET, new byte[] {2}, List.of())).code());
                RemoteException encoding = assertThrows(RemoteException.class, () -> c.call(Method.GET, new byte[] {3}, List.of()));
                assertTrue(encoding.getMessage().contains("broken cell"), encoding.getMessage());
                c.call(Method.GET, new byte[] {4}, List.of());
                c.call(Method.GET, new byte[] {0}, List.of());
            }
            RpcConnection gone = RpcConnection.open(HOST, server.port(), 5000, 10_000);
            Thread caller = new Thread(() -> {
                try {
                    gone.call(Method.GET, new byte[] {5}, List.of());
                } catch (IOException expected) {
                    // closed below
                }
            });
            caller.start();
            assertTrue(sixCalls.await(10, TimeUnit.SECONDS), "the sixth call reached the service");
            gone.close();
            clientGone.countDown();
            assertTrue(lateAnswered.await(20, TimeUnit.SECONDS));
            assertTrue(closeSeenBeforeAnswer.get(), "the server dropped the connection before the late answer");
            caller.join(10_000);
        } finally {
            server.stop();
        }
        assertEquals(6, scopes.size());
        for (int i = 0; i < scopes.size(); i++) {
            assertEquals(1, scopes.get(i).closes.get(), "scope of call " + i + " closed exactly once");
        }
        pool.checkNoLeaks();
    }

    /** A cell whose bytes cannot be read: encoding the response fails. */
    private static final class BrokenCell implements Cell {
        private final KeyValue kv = FrameRoundTripTest.kv("a", "b");

        @Override
        public int getSerializedLength() {
            return kv.getSerializedLength();
        }

        @Override
        public int keyLength() {
            return kv.keyLength();
        }

        @Override
        public int valueLength() {
            return kv.valueLength();
        }

        @Override
        public int rowLength() {
            return kv.rowLength();
        }

        @Override
        public int familyLength() {
            return kv.familyLength();
        }

        @Override
        public int qualifierLength() {
            return kv.qualifierLength();
        }

        @Override
        public long timestamp() {
            return kv.timestamp();
        }

        @Override
        public byte typeByte() {
            return kv.typeByte();
        }

        @Override
        public byte[] row() {
            return kv.row();
        }

        @Override
        public byte[] family() {
            return kv.family();
        }

        @Override
        public byte[] qualifier() {
            return kv.qualifier();
        }

        @Override
        public byte[] value() {
            return kv.value();
        }

        @Override
        public ByteBuffer serializedView() {
            throw new IllegalStateException("broken cell");
        }

        @Override
        public void copyTo(byte[] dst, int offset) {
            throw new IllegalStateException("broken cell");
        }

        @Override
        public Cell withTimestamp(long ts) {
            return this;
        }

        @Override
        public KeyValue toOwnKeyValue() {
            return kv;
        }
    }
}
