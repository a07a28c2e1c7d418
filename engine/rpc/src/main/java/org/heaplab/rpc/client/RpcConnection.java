package org.heaplab.rpc.client;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * The client end of one connection: one socket shared by any number of calling threads. Each call
 * gets a fresh call id; a reader thread reads response frames and completes the waiting call whose
 * id matches, so responses may arrive in any order.
 *
 * <p>Thread safety: {@link #call} may be used by many threads at once; frames are written whole
 * under a lock. Once the socket fails or closes, every waiting and later call fails with an
 * IOException naming the server and the cause.
 */
public final class RpcConnection implements Closeable {
    private final Socket socket;
    private final OutputStream out;
    private final String address;
    private final long callTimeoutMs;
    private final AtomicInteger nextCallId = new AtomicInteger();
    private final Map<Integer, CompletableFuture<Response>> pending = new ConcurrentHashMap<>();
    private final Thread reader;
    private volatile IOException failure;

    private RpcConnection(Socket socket, String address, long callTimeoutMs) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.address = address;
        this.callTimeoutMs = callTimeoutMs;
        out.write(FrameWriter.preamble());
        out.flush();
        this.reader = new Thread(this::readLoop, "RpcConnection.reader-" + address);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Connects and sends the preamble.
     *
     * @throws java.net.ConnectException when nothing listens at host:port
     */
    public static RpcConnection open(String host, int port, int connectTimeoutMs, long callTimeoutMs) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
            return new RpcConnection(s, host + ":" + port, callTimeoutMs);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    public String address() {
        return address;
    }

    /**
     * Sends one request and waits for its response.
     *
     * @return the OK response (params and cells are owned by the caller)
     * @throws RemoteException when the server answers with an error
     * @throws IOException when the connection fails, closes, or the call times out
     */
    public Response call(Method method, byte[] params, List<KeyValue> cells) throws IOException {
        int callId = nextCallId.getAndIncrement() & Integer.MAX_VALUE;
        byte[] frame = FrameWriter.request(callId, method, params, cells);
        CompletableFuture<Response> f = new CompletableFuture<>();
        pending.put(callId, f);
        IOException failed = failure;
        if (failed != null) {
            pending.remove(callId);
            throw new IOException(failed.getMessage(), failed);
        }
        try {
            synchronized (out) {
                out.write(frame);
                out.flush();
            }
        } catch (IOException e) {
            pending.remove(callId);
            fail(new IOException("connection to " + address + " failed: " + e.getMessage(), e));
            throw failure;
        }
        Response r;
        try {
            r = f.get(callTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            pending.remove(callId);
            throw new SocketTimeoutException("call " + method + " to " + address + " timed out after " + callTimeoutMs + " ms");
        } catch (InterruptedException e) {
            pending.remove(callId);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + method + " on " + address);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RemoteException re) {
                throw new RemoteException(re.code(), re.errorClass(), re.getMessage());
            }
            throw new IOException(c.getMessage(), c);
        }
        if (r.isError()) {
            throw RemoteException.of(r);
        }
        return r;
    }

    private void readLoop() {
        try {
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 16 * 1024));
            while (true) {
                int length = in.readInt();
                if (length < RpcConstants.MIN_RESPONSE_BODY) {
                    throw new IOException("bad response frame length " + length + " from " + address);
                }
                byte[] body = new byte[length];
                in.readFully(body);
                Response r = FrameReader.readResponse(body);
                if (r.callId() == RpcConstants.NO_CALL_ID && r.isError()) {
                    fail(RemoteException.of(r));
                    return;
                }
                CompletableFuture<Response> f = pending.remove(r.callId());
                if (f != null) {
                    f.complete(r);
                }
            }
        } catch (EOFException e) {
            fail(new IOException("connection to " + address + " closed by the server"));
        } catch (IOException e) {
            fail(failure != null ? failure : new IOException("connection to " + address + " failed: " + e.getMessage(), e));
        }
    }

    /** Records the first failure, closes the socket and fails every waiting call. */
    private void fail(IOException e) {
        synchronized (this) {
            if (failure == null) {
                failure = e;
            }
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Integer id : pending.keySet()) {
            CompletableFuture<Response> f = pending.remove(id);
            if (f != null) {
                f.completeExceptionally(failure);
            }
        }
    }

    public boolean isOpen() {
        return failure == null;
    }

    @Override
    public void close() {
        fail(new IOException("connection to " + address + " was closed by this client"));
    }
}
