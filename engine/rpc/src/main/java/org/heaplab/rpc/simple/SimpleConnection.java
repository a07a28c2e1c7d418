package org.heaplab.rpc.simple;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.heaplab.rpc.buffers.HeapCopies;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameErrors;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.CallQueueTooBigException;
import org.heaplab.rpc.server.CallTransport;

/**
 * One client connection of a {@link SimpleRpcServer}: a non-blocking channel read by its {@link Reader}
 * and written by whichever thread answers a call (inline), or by the {@link Responder} when the socket
 * would block.
 *
 * <p>Reading is a small state machine driven by the reader thread alone (no lock):
 * <pre>
 *   PREAMBLE (5 bytes) ─▶ LENGTH (4) ─▶ BODY (length bytes, into a RequestBuffer) ─▶ LENGTH ...
 *                           ├─ too big ─▶ CALL_ID (4) ─▶ error, DRAIN
 *                           └─ no room ─▶ CALL_ID (4) ─▶ SERVER_BUSY, DISCARD (the rest of the body) ─▶ LENGTH
 *   bad preamble / length below the header ─▶ error, DRAIN: output half-closed after the error is
 *   written, input discarded for up to 2 s (so the close is not a reset that loses the error), close
 *   nothing received for the read timeout in the middle of a frame ─▶ close (checked by the Reader)
 * </pre>
 * "No room": the body's declared length is reserved from the server's bound on bytes still arriving
 * ({@link RpcConstants#MAX_RECEIVING_BYTES_KEY}) before its buffer is allocated, and given back once the
 * body is complete or the connection closes; so clients that declare large frames and send nothing
 * cannot fill the heap, and the read timeout closes them.
 * The body goes straight from the socket into the configured allocator's buffer (heap byte[] on the
 * 1.x path, read 64 KB at a time as HBase does; pooled direct segments on the 2.x path).
 *
 * <p>Writing ({@link #send}): {@link PendingResponses} writes a frame at once when nothing is pending
 * and the socket takes it; whatever the socket does not take waits there, in order, for the Responder.
 *
 * <p>Closing may happen on any thread; the body being read is released by the reader thread only
 * ({@link #releasePartial}), which learns of the close through {@link Reader#forget}.
 */
final class SimpleConnection implements CallTransport {
    /** Frames decoded per readable event before the reader serves its other connections. */
    private static final int MAX_FRAMES_PER_EVENT = 16;
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(2);

    private enum State { PREAMBLE, LENGTH, CALL_ID, BODY, DISCARD, DRAIN }

    final SocketChannel channel;
    final Reader reader;
    private final SimpleRpcServer server;
    private final String remote;

    // reader thread only
    private State state = State.PREAMBLE;
    private final ByteBuffer preamble = ByteBuffer.allocate(RpcConstants.PREAMBLE_LENGTH);
    private final ByteBuffer word = ByteBuffer.allocate(4);
    private int frameLength;
    private boolean refusedForRoom; // CALL_ID after a frame that did not fit: answer SERVER_BUSY, not too big
    private int reserved; // bytes of the server's receiving bound this connection holds (its body)
    private RequestBuffer body;
    private long bodyRead;
    private long discardLeft;
    private long drainDeadline;
    private long lastReadNanos = System.nanoTime();

    private final PendingResponses responses; // any thread

    SimpleConnection(SocketChannel channel, Reader reader, SimpleRpcServer server) {
        this.channel = channel;
        this.reader = reader;
        this.server = server;
        this.remote = String.valueOf(channel.socket().getRemoteSocketAddress());
        this.responses = new PendingResponses(channel, server.backlog());
    }

    @Override
    public boolean isOpen() {
        return !responses.isClosed();
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    // ---- reading (reader thread) ----

    /** Reads what the socket has now, decoding and dispatching up to {@link #MAX_FRAMES_PER_EVENT} frames. */
    void read() {
        lastReadNanos = System.nanoTime(); // readable: bytes arrived (or the end of the stream)
        try {
            int frames = 0;
            while (!responses.isClosed() && frames < MAX_FRAMES_PER_EVENT) {
                switch (state) {
                    case PREAMBLE -> {
                        if (!fill(preamble)) {
                            return;
                        }
                        checkPreamble();
                    }
                    case LENGTH -> {
                        if (!fill(word)) {
                            return;
                        }
                        onLength(word.getInt(0));
                    }
                    case CALL_ID -> {
                        if (!fill(word)) {
                            return;
                        }
                        onCallId(word.getInt(0));
                    }
                    case BODY -> {
                        if (!fillBody()) {
                            return;
                        }
                        frames++;
                        onBody();
                    }
                    case DISCARD -> {
                        if (!discard()) {
                            return;
                        }
                    }
                    case DRAIN -> {
                        drain();
                        return;
                    }
                }
            }
        } catch (EOFException e) {
            close(); // the peer closed, possibly mid-frame: nothing to answer
        } catch (IOException e) {
            if (!responses.isClosed() && !server.isStopping()) {
                server.log("connection " + remote + " failed: " + e.getMessage());
            }
            close();
        }
    }

    /** Reads into {@code b}; true when it is full. */
    private boolean fill(ByteBuffer b) throws IOException {
        if (channel.read(b) < 0) {
            throw new EOFException();
        }
        return !b.hasRemaining();
    }

    private void checkPreamble() {
        preamble.flip();
        byte[] p = new byte[RpcConstants.PREAMBLE_LENGTH];
        preamble.get(p);
        try {
            FrameReader.checkPreamble(p);
        } catch (MalformedFrameException e) {
            closeAfterError(FrameWriter.error(e.callId(), e.code(), e.getClass().getName(), e.getMessage()));
            return;
        }
        word.clear();
        state = State.LENGTH;
    }

    private void onLength(int length) {
        word.clear();
        if (length < RpcConstants.MIN_REQUEST_BODY) {
            closeAfterError(FrameErrors.belowHeader(length));
            return;
        }
        frameLength = length;
        if (length > server.maxRequestSize() || length > server.receiving().max()) {
            refusedForRoom = false;
            state = State.CALL_ID; // read only the call id, to answer it
            return;
        }
        if (!server.receiving().reserve(length)) {
            refusedForRoom = true;
            state = State.CALL_ID;
            return;
        }
        reserved = length;
        // 1.x: a fresh heap byte[]; 2.x: pooled direct buffers. Released after the response.
        body = server.allocator().allocate(length);
        bodyRead = 0;
        state = State.BODY;
    }

    /** The call id of a frame that is not read: refused for room (the connection goes on) or too big. */
    private void onCallId(int callId) {
        if (!refusedForRoom) {
            onTooBig(callId);
            return;
        }
        word.clear();
        send(ResponseFrame.onHeap(FrameWriter.error(callId, ErrorCode.SERVER_BUSY,
            CallQueueTooBigException.class.getName(), "request bodies of " + server.receiving().max()
                + " bytes are arriving already (" + RpcConstants.MAX_RECEIVING_BYTES_KEY + "); back off and retry")));
        discardLeft = frameLength - 4L;
        state = State.DISCARD;
    }

    /** Reads and drops the rest of a refused frame; true when it is all gone (then the next length). */
    private boolean discard() throws IOException {
        ByteBuffer sink = reader.scratch();
        while (discardLeft > 0) {
            sink.clear().limit((int) Math.min(sink.capacity(), discardLeft));
            int n = channel.read(sink);
            if (n < 0) {
                throw new EOFException();
            }
            if (n == 0) {
                return false;
            }
            discardLeft -= n;
        }
        state = State.LENGTH;
        return true;
    }

    private void onTooBig(int callId) {
        boolean overMax = frameLength > server.maxRequestSize();
        String key = overMax ? RpcConstants.MAX_REQUEST_SIZE_KEY : RpcConstants.MAX_RECEIVING_BYTES_KEY;
        long bound = overMax ? server.maxRequestSize() : server.receiving().max();
        server.log("closing " + remote + ": request of " + frameLength + " bytes exceeds " + key);
        closeAfterError(FrameErrors.tooBig(callId, frameLength, key, bound));
    }

    /** Reads into the body's segments in order; true when the body is complete. */
    private boolean fillBody() throws IOException {
        for (ByteBuffer s : body.segments()) {
            while (s.hasRemaining()) {
                int n = ChannelChunks.read(channel, s);
                if (n < 0) {
                    throw new EOFException();
                }
                if (n == 0) {
                    return false;
                }
                bodyRead += n;
            }
        }
        return bodyRead == frameLength;
    }

    private void onBody() {
        RequestBuffer b = body;
        body = null;
        giveBackRoom(); // complete: from here the call queue's length bounds it
        for (ByteBuffer s : b.segments()) {
            s.position(0); // segments are read with absolute indexes from 0 to their limit
            if (!s.isDirect()) {
                HeapCopies.request(s.limit()); // the socket's bytes landed in a heap buffer
            }
        }
        state = State.LENGTH;
        server.process(this, b);
    }

    /** Sends a connection-ending error, half-closes once it is written and discards input for a while. */
    private void closeAfterError(byte[] error) {
        send(ResponseFrame.onHeap(error));
        responses.shutdownOutputWhenWritten();
        state = State.DRAIN;
        drainDeadline = System.nanoTime() + DRAIN_NANOS;
        reader.watchDrain(this);
    }

    private void drain() throws IOException {
        ByteBuffer sink = reader.scratch();
        while (true) {
            sink.clear();
            int n = channel.read(sink);
            if (n < 0) {
                close();
                return;
            }
            if (n == 0) {
                return;
            }
        }
    }

    /** Reader thread: true when this connection's drain time is over (it is then closed). */
    boolean drainExpired(long now) {
        if (!responses.isClosed() && now - drainDeadline > 0) {
            close();
        }
        return responses.isClosed();
    }

    /** Reader thread (or after the reader stopped): gives back the body being read, if any. */
    void releasePartial() {
        if (body != null) {
            body.release();
            body = null;
        }
        giveBackRoom();
    }

    private void giveBackRoom() {
        if (reserved > 0) {
            server.receiving().release(reserved);
            reserved = 0;
        }
    }

    /**
     * Reader thread: closes this connection when it has sent nothing for the read timeout in the middle of
     * a frame (a client that declared a body and stalled); true when it did.
     */
    boolean closeIfStalled(long now) {
        boolean midFrame = switch (state) {
            case PREAMBLE -> preamble.position() > 0;
            case LENGTH -> word.position() > 0;
            case CALL_ID, BODY, DISCARD -> true;
            case DRAIN -> false; // has its own deadline
        };
        if (responses.isClosed() || !midFrame || now - lastReadNanos <= server.readTimeoutNanos()) {
            return false;
        }
        server.log("closing " + remote + ": nothing received for " + server.readTimeoutNanos() / 1_000_000
            + " ms in the middle of a frame (" + RpcConstants.READ_TIMEOUT_KEY + ")");
        close();
        return true;
    }

    // ---- writing (any thread) ----

    /** Writes the frame now if nothing is pending and the socket takes it all; else queues it for the Responder. */
    @Override
    public void send(ResponseFrame frame) {
        switch (responses.send(frame)) {
            case FAILED -> close();
            case WATCH -> {
                server.responderHandoffs.increment();
                server.responder().watch(this); // the socket would block: the Responder finishes it
            }
            case DONE, QUEUED -> { }
        }
    }

    /** Responder thread: writes pending frames in order; true when none is left. */
    boolean flush() {
        try {
            return responses.flush();
        } catch (IOException e) {
            close();
            return true;
        }
    }

    /** True when frames have waited for the socket longer than {@code nanos} (the client stopped reading). */
    boolean pendingLongerThan(long nanos, long now) {
        return responses.pendingLongerThan(nanos, now);
    }

    /** Closes the socket and drops unwritten frames; the reader then releases a half-read body. Any thread, idempotent. */
    void close() {
        if (!responses.close()) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        server.closed(this);
        reader.forget(this);
    }
}
