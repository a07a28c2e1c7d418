package org.heaplab.client;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * A "region server" that dies with every request: it reads the preamble and one whole request frame,
 * then drops the connection without answering, as a server killed right after a call arrived. The
 * client cannot tell whether the call ran.
 */
final class CrashingServer implements AutoCloseable {
    private final ServerSocket socket;
    private final Thread acceptor;
    /** Whole request frames received. */
    final AtomicInteger requests = new AtomicInteger();

    CrashingServer() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::serve, "crashing-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String address() {
        return FakeCluster.HOST + ":" + socket.getLocalPort();
    }

    private void serve() {
        while (!socket.isClosed()) {
            try (Socket s = socket.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                in.readFully(new byte[RpcConstants.PREAMBLE_LENGTH]);
                in.readFully(new byte[in.readInt()]);
                requests.incrementAndGet();
                s.setSoLinger(true, 0); // reset, as a killed process's socket
            } catch (IOException e) {
                // closed, or the client gave up: next connection
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
