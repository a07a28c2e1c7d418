package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.buffers.HeapRequestBuffers;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.simple.SimpleRpcServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Clients that lie about a frame's length and then stall: every RpcServers implementation keeps serving a
 * well-behaved client, closes the liars after heaplab.ipc.server.read.timeout, and gives back every byte
 * they held. SimpleRpcServer, which allocates a body when its length arrives (as HBase's does), admits
 * only as many declared bytes as heaplab.ipc.server.max.receiving.bytes and answers the rest SERVER_BUSY;
 * NettyRpcServer holds only the bytes that arrived.
 */
@Timeout(60)
class HostileClientTest {
    private static final int DECLARED = 6 << 20; // each liar declares a 6 MB request...
    private static final int SENT = 100; // ...sends its call id and 100 bytes of it, and stops
    private static final int LIARS = 4;

    private final List<String> log = new CopyOnWriteArrayList<>();
    private RpcServer server;

    static List<String> implementations() {
        return RpcServers.implementations();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static Configuration conf() {
        return new Configuration().set(RpcConstants.READ_TIMEOUT_KEY, "1000")
            .set(RpcConstants.MAX_RECEIVING_BYTES_KEY, String.valueOf(8 << 20)) // room for one liar's body
            .set(RpcConstants.HANDLER_COUNT_KEY, "2");
    }

    private static Socket liar(int port, int callId) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.setSoTimeout(10_000);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.write(FrameWriter.preamble());
        out.writeInt(DECLARED);
        out.writeInt(callId);
        out.write(new byte[SENT]);
        out.flush();
        return s;
    }

    /** What the server sends a liar until it closes the connection: the error codes of the frames, in order. */
    private static List<ErrorCode> answersUntilClosed(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        List<ErrorCode> codes = new ArrayList<>();
        while (true) {
            int length;
            try {
                length = in.readInt();
            } catch (EOFException e) {
                return codes; // closed by the server (a SocketTimeoutException instead fails the test)
            }
            byte[] body = new byte[length];
            in.readFully(body);
            codes.add(FrameReader.readResponse(body).error());
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void liarsAreRefusedOrClosedAndAWellBehavedClientIsServed(String impl) throws Exception {
        RpcService echo = request -> RpcService.Reply.of(new ParamWriter().writeInt(request.callId()));
        server = RpcServers.create(impl, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), echo, conf(), log::add);
        server.start();
        List<Socket> liars = new ArrayList<>();
        try (RpcConnection good = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(),
            5000, 5000)) {
            for (int i = 0; i < LIARS; i++) {
                liars.add(liar(server.port(), 100 + i));
            }
            for (int i = 0; i < 200; i++) { // answered within the call timeout, while the liars hold their frames
                assertFalse(good.call(Method.GET, new byte[0], List.of()).isError());
            }
            int busy = 0;
            for (Socket s : liars) {
                List<ErrorCode> codes = answersUntilClosed(s);
                assertTrue(codes.stream().allMatch(c -> c == ErrorCode.SERVER_BUSY), codes::toString);
                busy += codes.size();
            }
            // Simple: one liar's 6 MB fit in the 8 MB bound, the other three were refused; Netty reserves nothing
            assertEquals(impl.equals("SimpleRpcServer") ? LIARS - 1 : 0, busy);
            assertFalse(good.call(Method.GET, new byte[0], List.of()).isError(), "still served after the closes");
        } finally {
            for (Socket s : liars) {
                s.close();
            }
        }
        assertTrue(log.stream().filter(l -> l.contains("in the middle of a frame")).count() >= LIARS, log::toString);
        awaitNothingHeld();
    }

    /** The closes are handled on the server's reader threads: wait (briefly) for the held bytes to go back. */
    private void awaitNothingHeld() throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (held() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, held(), "request buffers still outstanding, or receiving bytes still reserved");
    }

    private long held() {
        long receiving = server instanceof SimpleRpcServer simple ? simple.receivingBytes() : 0;
        return server.allocator().outstanding() + receiving;
    }

    @Test
    void aFrameLargerThanTheWholeReceivingBoundIsTooBig() throws Exception {
        server = RpcServers.create("SimpleRpcServer", new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            request -> RpcService.Reply.EMPTY, conf().set(RpcConstants.MAX_RECEIVING_BYTES_KEY, "4096"), log::add);
        server.start();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.write(FrameWriter.preamble());
            out.writeInt(8192);
            out.writeInt(7);
            out.flush();
            assertEquals(List.of(ErrorCode.REQUEST_TOO_BIG), answersUntilClosed(s));
        }
        assertTrue(log.stream().anyMatch(l -> l.contains(RpcConstants.MAX_RECEIVING_BYTES_KEY)), log::toString);
    }

    @Test
    void aHeapRequestBufferThatCannotBeAllocatedIsNotCounted() {
        HeapRequestBuffers buffers = new HeapRequestBuffers();
        // beyond the VM's array limit: fails at once, whatever the heap, without allocating anything
        assertThrows(OutOfMemoryError.class, () -> buffers.allocate(Integer.MAX_VALUE));
        assertEquals(0, buffers.outstanding());
        assertEquals(0, buffers.heapAllocationBytes());
    }
}
