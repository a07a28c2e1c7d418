package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input never kills or wedges a server, on every {@link RpcServers} implementation:
 * several fuzzing clients send random and mutated frames (bit flips, length lies, truncation, oversized
 * frames, unknown methods, wrong param types, garbage, abrupt resets) while one well-behaved client keeps
 * calling and must get exactly the right answer every time (or SERVER_BUSY, which it retries).
 * Afterwards: every request buffer is back (pooled buffers with the leak detector on), every
 * closeAfterResponse resource was closed exactly once, and the server still answers.
 *
 * <p>Seeded: the seed is printed; rerun one with {@code -Dheaplab.fuzz.seed=N}. Every response a
 * fuzzer receives must decode: the server never sends garbage back.
 */
@Timeout(60)
class RpcServerFuzzTest {
    private static final int MAX_REQUEST = 32 * 1024;
    private static final int FUZZERS = 4;
    private static final int SCENARIOS_PER_FUZZER = 300;
    private static final Set<ErrorCode> FUZZ_ERRORS = EnumSet.of(ErrorCode.BAD_PREAMBLE, ErrorCode.MALFORMED_REQUEST,
        ErrorCode.REQUEST_TOO_BIG, ErrorCode.UNKNOWN_METHOD, ErrorCode.SERVER_BUSY, ErrorCode.ILLEGAL_ARGUMENT);

    private final List<String> log = new CopyOnWriteArrayList<>();
    private final AtomicLong registered = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();
    private final AtomicBoolean doubleClose = new AtomicBoolean();

    /** Every implementation on the 1.x (heap) and 2.x (pooled direct) memory paths. */
    static List<Arguments> servers() {
        List<Arguments> out = new ArrayList<>();
        for (String impl : RpcServers.implementations()) {
            out.add(Arguments.of(impl, "heap"));
            out.add(Arguments.of(impl, "pooled"));
        }
        return out;
    }

    /**
     * GET: answers its string param back; PUT: echoes its cells with the row count; INCREMENT: a long param.
     * Every call registers a resource that must be closed exactly once after its response.
     */
    private final RpcService service = new RpcService() {
        @Override
        public Reply call(Request request) throws IOException {
            throw new AssertionError("the two-argument call is used");
        }

        @Override
        public void call(Request request, ServerCall call) {
            registered.incrementAndGet();
            AtomicBoolean once = new AtomicBoolean();
            call.closeAfterResponse(() -> {
                if (!once.compareAndSet(false, true)) {
                    doubleClose.set(true);
                }
                closed.incrementAndGet();
            });
            try {
                ParamReader in = request.paramReader();
                Reply reply = switch (request.method()) {
                    case GET -> Reply.of(new ParamWriter().writeString(in.readString()));
                    case PUT -> new Reply(new ParamWriter().writeString(in.readString()).writeInt(request.cells().size())
                        .toByteArray(), request.cells());
                    case INCREMENT -> Reply.of(new ParamWriter().writeLong(in.readLong() + 1));
                    default -> Reply.EMPTY;
                };
                call.reply(reply);
            } catch (Throwable t) {
                call.fail(t);
            }
        }
    };

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("servers")
    void badInputNeverKillsOrWedgesTheServer(String impl, String memory) throws Exception {
        long seed = Long.getLong("heaplab.fuzz.seed", System.nanoTime());
        System.out.println("RpcServerFuzzTest " + impl + " " + memory + " seed=" + seed + " (rerun: -Dheaplab.fuzz.seed=" + seed + ")");
        String leakProperty = System.getProperty(RpcConstants.LEAK_DETECTION_PROPERTY);
        System.setProperty(RpcConstants.LEAK_DETECTION_PROPERTY, "true");
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "4")
            .set(RpcConstants.MAX_REQUEST_SIZE_KEY, Integer.toString(MAX_REQUEST))
            .set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "64")
            .set("hbase.ipc.server.read.threadpool.size", "3")
            // on the 2.x path small pooled buffers: big requests span segments and the pool runs dry
            .set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, Boolean.toString(memory.equals("pooled")))
            .set(RpcConstants.ALLOCATOR_BUFFER_SIZE_KEY, "4096")
            .set(RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY, "48")
            .set(RpcConstants.ALLOCATOR_MIN_ALLOCATE_SIZE_KEY, "512");
        RpcServer server = RpcServers.create(impl, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), service,
            conf, log::add);
        try {
            server.start();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            AtomicBoolean fuzzing = new AtomicBoolean(true);
            AtomicLong goodCalls = new AtomicLong();
            Thread good = new Thread(() -> wellBehaved(server.port(), new Random(seed), fuzzing, goodCalls, failures), "good");
            List<Thread> fuzzers = new ArrayList<>();
            for (int f = 0; f < FUZZERS; f++) {
                Random rnd = new Random(seed * 31 + f);
                fuzzers.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < SCENARIOS_PER_FUZZER; i++) {
                            scenario(server.port(), rnd);
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }, "fuzzer-" + f));
            }
            good.start();
            fuzzers.forEach(Thread::start);
            for (Thread t : fuzzers) {
                t.join(40_000);
            }
            fuzzing.set(false);
            good.join(20_000);
            if (!failures.isEmpty()) {
                Throwable first = failures.get(0);
                throw new AssertionError("seed " + seed + " on " + impl + ": " + failures.size() + " failures, first: " + first, first);
            }
            assertTrue(goodCalls.get() >= 20, "seed " + seed + ": the good client got only " + goodCalls + " answers");
            // still serving after the storm
            // (calls the fuzzers queued may still fill the queue for a moment: SERVER_BUSY is an answer, retried)
            try (RpcConnection c = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(), 5000, 10_000)) {
                long deadline = System.nanoTime() + 10_000_000_000L;
                String answer = null;
                while (answer == null) {
                    try {
                        answer = c.call(Method.GET, new ParamWriter().writeString("after").toByteArray(), List.of())
                            .paramReader().readString();
                    } catch (RemoteException e) {
                        if (e.code() != ErrorCode.SERVER_BUSY || System.nanoTime() > deadline) {
                            throw e;
                        }
                        Thread.sleep(10);
                    }
                }
                assertEquals("after", answer);
            }
        } finally {
            server.stop();
            if (leakProperty == null) {
                System.clearProperty(RpcConstants.LEAK_DETECTION_PROPERTY);
            } else {
                System.setProperty(RpcConstants.LEAK_DETECTION_PROPERTY, leakProperty);
            }
        }
        RequestBufferAllocator alloc = server.allocator();
        if (alloc instanceof DirectBufferPool pool) {
            pool.checkNoLeaks();
        }
        assertEquals(0, alloc.outstanding(), "seed " + seed + ": every request buffer released");
        assertEquals(registered.get(), closed.get(), "seed " + seed + ": every closeAfterResponse resource closed");
        assertTrue(!doubleClose.get(), "seed " + seed + ": a resource closed twice");
    }

    /** Calls in a loop until the fuzzers finish; every answer must be exactly right (SERVER_BUSY is retried). */
    private static void wellBehaved(int port, Random rnd, AtomicBoolean fuzzing, AtomicLong calls, List<Throwable> failures) {
        try (RpcConnection c = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), port, 5000, 15_000)) {
            int i = 0;
            while (fuzzing.get() || i < 20) {
                String tag = "good-" + i;
                List<KeyValue> cells = new ArrayList<>();
                int n = rnd.nextInt(4);
                for (int k = 0; k < n; k++) {
                    cells.add(FrameRoundTripTest.kv(tag + "-" + k, "v".repeat(rnd.nextInt(3000))));
                }
                try {
                    Response r = c.call(Method.PUT, new ParamWriter().writeString(tag).toByteArray(), cells);
                    ParamReader in = r.paramReader();
                    assertEquals(tag, in.readString());
                    assertEquals(n, in.readInt());
                    assertEquals(cells, r.cells());
                    calls.incrementAndGet();
                    i++;
                } catch (RemoteException e) {
                    if (e.code() != ErrorCode.SERVER_BUSY) {
                        throw e;
                    }
                    Thread.sleep(2);
                }
            }
        } catch (Throwable t) {
            failures.add(new AssertionError("the well-behaved client failed: " + t, t));
        }
    }

    /** One hostile connection: some bytes, then a half-close (or a reset), then every answer must decode. */
    private static void scenario(int port, Random rnd) throws IOException {
        byte[] bytes = hostileBytes(rnd);
        boolean reset = rnd.nextInt(8) == 0;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(15_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
            } catch (SocketException e) {
                return; // the server closed first (after an error): fine
            }
            if (reset) {
                s.setSoLinger(true, 0); // abrupt: RST, unread answers lost
                return;
            }
            s.shutdownOutput();
            DataInputStream in = new DataInputStream(s.getInputStream());
            while (true) {
                int len;
                try {
                    len = in.readInt();
                } catch (EOFException | SocketException e) {
                    return; // closed by the server: the end of this scenario
                } catch (SocketTimeoutException e) {
                    fail("the server neither answered nor closed within 15 s (wedged?) after " + bytes.length + " bytes");
                    return;
                }
                assertTrue(len >= RpcConstants.MIN_RESPONSE_BODY && len < 8 * MAX_REQUEST, "response length " + len);
                byte[] body = new byte[len];
                try {
                    in.readFully(body);
                } catch (EOFException | SocketException e) {
                    return; // cut by the close after a connection-ending error: allowed only mid-stream of answers
                }
                Response r = FrameReader.readResponse(body);
                if (r.isError()) {
                    assertTrue(FUZZ_ERRORS.contains(r.error()), "unexpected error " + r.error() + ": " + r.message());
                }
            }
        }
    }

    /** A preamble (usually right) and a few frames, then one of the mutations. */
    private static byte[] hostileBytes(Random rnd) {
        ByteBuffer b = ByteBuffer.allocate(4 * MAX_REQUEST + 64);
        byte[] preamble = FrameWriter.preamble();
        if (rnd.nextInt(12) == 0) {
            preamble[rnd.nextInt(preamble.length)] ^= (byte) (1 << rnd.nextInt(8));
        }
        b.put(preamble);
        int frames = 1 + rnd.nextInt(4);
        for (int f = 0; f < frames; f++) {
            byte[] frame = validFrame(rnd, f);
            switch (rnd.nextInt(9)) {
                case 0 -> { // bit flips anywhere in the frame
                    for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                        int i = rnd.nextInt(frame.length);
                        frame[i] ^= (byte) (1 << rnd.nextInt(8));
                    }
                }
                case 1 -> ByteBuffer.wrap(frame).putInt(0, frame.length - 4 + rnd.nextInt(64) - 32); // length lie
                case 2 -> frame = java.util.Arrays.copyOf(frame, rnd.nextInt(frame.length)); // truncation
                case 3 -> ByteBuffer.wrap(frame).putInt(0, MAX_REQUEST + 1 + rnd.nextInt(Integer.MAX_VALUE - MAX_REQUEST - 1)); // oversized
                case 4 -> frame[8] = (byte) (21 + rnd.nextInt(200)); // unknown method code
                case 5 -> { // wrong param types: random params bytes for a real method
                    byte[] params = new byte[rnd.nextInt(12)];
                    rnd.nextBytes(params);
                    frame = FrameWriter.request(f, new Method[] {Method.GET, Method.PUT, Method.INCREMENT}[rnd.nextInt(3)],
                        params, List.of());
                }
                case 6 -> { // garbage instead of a frame
                    frame = new byte[rnd.nextInt(200)];
                    rnd.nextBytes(frame);
                }
                default -> { } // a valid frame
            }
            if (b.remaining() < frame.length) {
                break;
            }
            b.put(frame);
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static byte[] validFrame(Random rnd, int callId) {
        return switch (rnd.nextInt(3)) {
            case 0 -> FrameWriter.request(callId, Method.GET, new ParamWriter().writeString("g" + callId).toByteArray(), List.of());
            case 1 -> {
                List<KeyValue> cells = new ArrayList<>();
                for (int k = rnd.nextInt(5); k > 0; k--) {
                    cells.add(FrameRoundTripTest.kv("r" + k, "x".repeat(rnd.nextInt(6000))));
                }
                yield FrameWriter.request(callId, Method.PUT, new ParamWriter().writeString("p").toByteArray(), cells);
            }
            default -> FrameWriter.request(callId, Method.INCREMENT, new ParamWriter().writeLong(callId).toByteArray(), List.of());
        };
    }
}
