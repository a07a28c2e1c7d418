package org.heaplab.rpc.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DuplexChannel;
import java.util.concurrent.TimeUnit;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.server.CallTransport;

/**
 * One accepted channel as the {@link CallTransport} its calls answer through. A handler thread's
 * {@link #send} hands the frame to the channel's event loop (Netty queues the write as a task there), so
 * a handler never blocks on a slow socket and frames of one connection never interleave.
 *
 * <p>Closing after a framing error (bad preamble, frame length out of range): the error frame is
 * written, our side half-closes so it arrives before the FIN, what the peer still sends is discarded
 * ({@link #isDiscarding()}, checked by the decoders) for up to two seconds, then the channel closes
 * (at once if the peer closes first). The same as SimpleRpcServer, so a client sees the error, not a reset.
 *
 * <p>Thread safety: send from any thread; the rest runs on the channel's event loop.
 */
final class NettyConnection implements CallTransport {
    /** How long a connection with broken framing is drained before it is closed. */
    static final long DRAIN_MS = 2000;

    private final Channel channel;
    private final String remote;
    private volatile boolean discarding;

    NettyConnection(Channel channel) {
        this.channel = channel;
        this.remote = String.valueOf(channel.remoteAddress());
    }

    /**
     * Writes the frame on the event loop without copying it ({@link ResponseFrameBufs}) and releases it
     * once Netty is done with it: after the write, or at once if the channel is closed.
     */
    @Override
    public void send(ResponseFrame frame) {
        channel.writeAndFlush(ResponseFrameBufs.wrap(frame), channel.voidPromise());
    }

    @Override
    public boolean isOpen() {
        return channel.isActive() && !discarding;
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    Channel channel() {
        return channel;
    }

    /** Answers a request that never became a call (undecodable, or the server is stopping); stays open. */
    void sendError(int callId, ErrorCode code, String errorClass, String message) {
        send(ResponseFrame.onHeap(FrameWriter.error(callId, code, errorClass, message)));
    }

    /** True once the framing is lost: the decoders drop every byte that still arrives. */
    boolean isDiscarding() {
        return discarding;
    }

    /**
     * Sends the error frame, half-closes, drains what the peer sends for {@link #DRAIN_MS}, then closes
     * (event loop only). Idempotent: only the first error is sent.
     */
    void closeAfterError(byte[] errorFrame) {
        if (discarding) {
            return;
        }
        discarding = true;
        channel.writeAndFlush(ResponseFrameBufs.wrap(ResponseFrame.onHeap(errorFrame))).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess() || !(channel instanceof DuplexChannel duplex)) {
                channel.close();
                return;
            }
            duplex.shutdownOutput();
            channel.eventLoop().schedule(() -> {
                channel.close();
            }, DRAIN_MS, TimeUnit.MILLISECONDS);
        });
    }
}
