package org.heaplab.bench;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The physical ceiling's server: plain blocking sockets, one thread per connection, no protocol beyond
 * a length prefix. It reads a request frame ({@code int32 length | body}) and writes a fixed answer frame
 * of the size an RPC get answer has, nothing else: no decoding, no queue, no handler hop, no allocation
 * per call. What an RPC server adds on top of this is its cost.
 *
 * <p>Thread safety: start once, close once; each connection's thread owns its socket.
 */
final class PlainEchoServer implements AutoCloseable {
    private final ServerSocket listener;
    private final byte[] answer;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    /** @param answer the whole answer frame (length prefix included), written for every request */
    PlainEchoServer(byte[] answer) throws IOException {
        this.answer = answer.clone();
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        this.acceptor = new Thread(this::accept, "PlainEchoServer.acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = listener.accept();
                s.setTcpNoDelay(true);
                sockets.add(s);
                Thread t = new Thread(() -> serve(s), "PlainEchoServer.conn-" + s.getPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("plain echo server: accept failed: " + e.getMessage());
                }
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 16 * 1024));
            OutputStream out = s.getOutputStream();
            byte[] body = new byte[1024];
            while (true) {
                int length = in.readInt();
                if (length < 0 || length > 1 << 20) {
                    throw new IOException("bad frame length " + length);
                }
                if (length > body.length) {
                    body = new byte[length];
                }
                in.readFully(body, 0, length);
                out.write(answer);
            }
        } catch (EOFException e) {
            // the client is done
        } catch (IOException e) {
            if (!closed) {
                System.err.println("plain echo server: connection failed: " + e.getMessage());
            }
        } finally {
            sockets.remove(s);
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
