package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Wire-protocol behaviour (wire-protocol.md: errors, framing, closes, stop) on every RpcServers implementation. */
@Timeout(60)
public class RpcServerBehaviourTest {
    private static final int MAX_REQUEST = 64 * 1024;

    private RpcServer server;
    private final List<String> log = new CopyOnWriteArrayList<>();

    /** Echoes PUT cells back (as a GET would), answers STATUS, fails FLUSH like a missing table. */
    public static final RpcService ECHO = request -> switch (request.method()) {
        case PUT -> new RpcService.Reply(new ParamWriter().writeString(request.paramReader().readString()).toByteArray(),
            request.cells());
        case FLUSH -> throw new org.heaplab.core.region.TableNotFoundException(request.paramReader().readString());
        case DROP_TABLE -> throw new IllegalStateException("boom");
        default -> RpcService.Reply.EMPTY;
    };

    static List<String> implementations() {
        return RpcServers.implementations();
    }

    private void start(String impl) throws IOException {
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "4")
            .set(RpcConstants.MAX_REQUEST_SIZE_KEY, Integer.toString(MAX_REQUEST));
        server = RpcServers.create(impl, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), ECHO, conf, log::add);
        server.start();
        assertEquals(impl, server.name());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private RpcConnection connect() throws IOException {
        return RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(), 5000, 10_000);
    }

    private Socket raw() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    private static Response readResponse(DataInputStream in) throws IOException {
        int len = in.readInt();
        byte[] body = new byte[len];
        in.readFully(body);
        return FrameReader.readResponse(body);
    }

    private static void assertClosedByServer(DataInputStream in) {
        assertThrows(IOException.class, () -> {
            while (true) {
                if (in.read() < 0) {
                    throw new EOFException();
                }
            }
        });
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void putEchoesCellsAndErrorsMapToCodes(String impl) throws Exception {
        start(impl);
        try (RpcConnection c = connect()) {
            List<KeyValue> cells = List.of(FrameRoundTripTest.kv("r1", "v1"), FrameRoundTripTest.kv("r2", "v2"));
            Response r = c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(), cells);
            assertEquals("t", r.paramReader().readString());
            assertEquals(cells, r.cells());
            RemoteException e = assertThrows(RemoteException.class,
                () -> c.call(Method.FLUSH, new ParamWriter().writeString("nope").toByteArray(), List.of()));
            assertEquals(ErrorCode.TABLE_NOT_FOUND, e.code());
            assertTrue(e.getMessage().contains("nope"));
            RemoteException bug = assertThrows(RemoteException.class, () -> c.call(Method.DROP_TABLE, new byte[0], List.of()));
            assertEquals(ErrorCode.SERVER_ERROR, bug.code());
            // a malformed params block is answered, and the connection keeps working
            RemoteException bad = assertThrows(RemoteException.class, () -> c.call(Method.PUT, new byte[] {0, 0, 0, 9}, List.of()));
            assertEquals(ErrorCode.MALFORMED_REQUEST, bad.code());
            assertEquals(0, c.call(Method.STATUS, new byte[0], List.of()).cells().size());
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void manyThreadsShareOneConnectionAndGetTheirOwnAnswers(String impl) throws Exception {
        start(impl);
        try (RpcConnection c = connect()) {
            int threads = 8;
            CountDownLatch go = new CountDownLatch(1);
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < 200; i++) {
                            String row = "t" + id + "-" + i;
                            Response r = c.call(Method.PUT, new ParamWriter().writeString(row).toByteArray(),
                                List.of(FrameRoundTripTest.kv(row, row)));
                            assertEquals(row, r.paramReader().readString());
                            assertEquals(row, new String(r.cells().get(0).value(), StandardCharsets.UTF_8));
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                ts.add(th);
                th.start();
            }
            go.countDown();
            for (Thread th : ts) {
                th.join();
            }
            assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void unknownMethodGetsAnErrorAndTheConnectionStaysOpen(String impl) throws Exception {
        start(impl);
        try (Socket s = raw()) {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FrameWriter.preamble());
            out.write(FrameWriter.request(41, (byte) 120, new byte[0], List.of()));
            Response r = readResponse(in);
            assertEquals(41, r.callId());
            assertEquals(ErrorCode.UNKNOWN_METHOD, r.error());
            out.write(FrameWriter.request(42, Method.STATUS, new byte[0], List.of()));
            Response ok = readResponse(in);
            assertEquals(42, ok.callId());
            assertTrue(!ok.isError());
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void oversizedRequestIsAnsweredAndTheConnectionClosed(String impl) throws Exception {
        start(impl);
        try (Socket s = raw(); RpcConnection other = connect()) {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FrameWriter.preamble());
            byte[] big = FrameWriter.request(7, Method.PUT, new ParamWriter().writeString("t").toByteArray(),
                List.of(FrameRoundTripTest.kv("r", "x".repeat(MAX_REQUEST))));
            out.write(big, 0, 8); // the length and the call id are enough for the server to answer
            Response r = readResponse(in);
            assertEquals(7, r.callId());
            assertEquals(ErrorCode.REQUEST_TOO_BIG, r.error());
            assertTrue(r.message().contains(RpcConstants.MAX_REQUEST_SIZE_KEY), r.message());
            assertClosedByServer(in);
            assertEquals(Method.STATUS, Method.STATUS);
            other.call(Method.STATUS, new byte[0], List.of());
        }
        // through the client: the call fails with the error, the connection is then closed
        try (RpcConnection c = connect()) {
            RemoteException e = assertThrows(RemoteException.class, () -> c.call(Method.PUT,
                new ParamWriter().writeString("t").toByteArray(), List.of(FrameRoundTripTest.kv("r", "x".repeat(MAX_REQUEST)))));
            assertEquals(ErrorCode.REQUEST_TOO_BIG, e.code());
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void garbagePreambleIsAnsweredAndClosedWhileAnotherClientWorks(String impl) throws Exception {
        start(impl);
        try (RpcConnection good = connect()) {
            for (int i = 0; i < 5; i++) {
                try (Socket s = raw()) {
                    byte[] junk = new byte[64];
                    new Random(i).nextBytes(junk);
                    junk[0] = 'X';
                    s.getOutputStream().write(junk);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    Response r = readResponse(in);
                    assertEquals(RpcConstants.NO_CALL_ID, r.callId());
                    assertEquals(ErrorCode.BAD_PREAMBLE, r.error());
                    assertClosedByServer(in);
                }
                good.call(Method.STATUS, new byte[0], List.of());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void negativeOrShortFrameLengthClosesTheConnection(String impl) throws Exception {
        start(impl);
        for (int len : new int[] {-5, 0, 3}) {
            try (Socket s = raw()) {
                OutputStream out = s.getOutputStream();
                out.write(FrameWriter.preamble());
                out.write(new byte[] {(byte) (len >>> 24), (byte) (len >>> 16), (byte) (len >>> 8), (byte) len});
                DataInputStream in = new DataInputStream(s.getInputStream());
                Response r = readResponse(in);
                assertEquals(ErrorCode.MALFORMED_REQUEST, r.error());
                assertClosedByServer(in);
            }
        }
        try (RpcConnection c = connect()) {
            c.call(Method.STATUS, new byte[0], List.of());
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void bytesAfterTheCellBlockAreMalformedWhileBytesAfterTheParamsAreIgnored(String impl) throws Exception {
        start(impl);
        try (Socket s = raw()) {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FrameWriter.preamble());
            List<KeyValue> cells = List.of(FrameRoundTripTest.kv("r", "v"));
            byte[] params = new ParamWriter().writeString("t").writeInt(7).toByteArray(); // ECHO reads only the string
            out.write(FrameWriter.request(51, Method.PUT, params, cells));
            Response ok = readResponse(in);
            assertEquals(51, ok.callId());
            assertFalse(ok.isError(), ok::toString);
            assertEquals("t", ok.paramReader().readString());

            byte[] frame = FrameWriter.request(52, Method.PUT, params, cells);
            ByteBuffer padded = ByteBuffer.allocate(frame.length + 3).putInt(frame.length - 4 + 3)
                .put(frame, 4, frame.length - 4).put(new byte[3]); // the frame length counts 3 bytes after the cells
            out.write(padded.array());
            Response bad = readResponse(in);
            assertEquals(52, bad.callId());
            assertEquals(ErrorCode.MALFORMED_REQUEST, bad.error());
            assertTrue(bad.message().contains("3 bytes after its cell block"), bad.message());

            out.write(FrameWriter.request(53, Method.STATUS, new byte[0], List.of()));
            assertEquals(53, readResponse(in).callId(), "the connection stays open");
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void truncatedFramesAndVanishingClientsDoNotHurtTheServer(String impl) throws Exception {
        start(impl);
        try (RpcConnection good = connect()) {
            for (int cut : new int[] {2, 4, 9, 20}) {
                try (Socket s = raw()) {
                    OutputStream out = s.getOutputStream();
                    out.write(FrameWriter.preamble());
                    byte[] frame = FrameWriter.request(3, Method.PUT, new ParamWriter().writeString("t").toByteArray(),
                        List.of(FrameRoundTripTest.kv("r", "v")));
                    out.write(frame, 0, cut);
                    out.flush();
                }
                good.call(Method.STATUS, new byte[0], List.of());
            }
            // half a preamble
            try (Socket s = raw()) {
                s.getOutputStream().write(new byte[] {'H', 'L'});
            }
            Response r = good.call(Method.PUT, new ParamWriter().writeString("still").toByteArray(), List.of());
            assertEquals("still", r.paramReader().readString());
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void stopAnswersQueuedCallsThenClosesAndFailsLaterCalls(String impl) throws Exception {
        start(impl);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RpcService slow = request -> {
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return RpcService.Reply.of(new ParamWriter().writeInt(1));
        };
        server.stop();
        RpcServer s2 = RpcServers.create(impl, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), slow,
            new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "1"), log::add);
        s2.start();
        RpcConnection c = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), s2.port(), 5000, 10_000);
        List<Object> results = new CopyOnWriteArrayList<>();
        Thread caller = new Thread(() -> {
            try {
                results.add(c.call(Method.STATUS, new byte[0], List.of()).paramReader().readInt());
            } catch (IOException e) {
                results.add(e);
            }
        });
        caller.start();
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        Thread stopper = new Thread(s2::stop);
        stopper.start();
        release.countDown();
        stopper.join(20_000);
        caller.join(20_000);
        assertEquals(List.of(1), results, "the in-flight call completes during stop");
        assertThrows(IOException.class, () -> c.call(Method.STATUS, new byte[0], List.of()));
        assertThrows(java.net.ConnectException.class, () -> RpcConnection.open(
            InetAddress.getLoopbackAddress().getHostAddress(), s2.port(), 2000, 1000));
        c.close();
    }
}
