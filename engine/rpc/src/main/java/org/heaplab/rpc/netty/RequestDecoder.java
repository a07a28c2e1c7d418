package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import org.heaplab.rpc.CallQueueTooBigException;
import org.heaplab.rpc.ErrorCode;
import org.heaplab.rpc.FrameReader;
import org.heaplab.rpc.MalformedFrameException;
import org.heaplab.rpc.Request;
import org.heaplab.rpc.RequestBuffer;
import org.heaplab.rpc.RpcCall;
import org.heaplab.rpc.RpcConstants;

/**
 * Last stage: turns each frame into an {@link RpcCall} and dispatches it to the shared scheduler, on the
 * event loop (no reader thread, no extra hop: the handler thread that takes the call is the next one).
 *
 * <pre>
 *   frame ByteBuf ──wrap──▶ RequestBuffer ──FrameReader + CellDecoder──▶ Request ──▶ RpcCall ──dispatch──▶ queue
 *     undecodable (unknown method, bad params or cells) -&gt; error response, buffer released, connection open
 *     server stopping                                   -&gt; SERVER_STOPPING, buffer released
 *     queue full                                        -&gt; SERVER_BUSY (the call answers itself, releasing the buffer)
 * </pre>
 *
 * <p>Backpressure: when the channel's outbound buffer passes its high-water mark (a client that sends
 * but does not read), the channel stops reading until the responses drain, so an unread client costs
 * a bounded amount of memory.
 *
 * <p>Thread safety: one instance per channel, run by its event loop only.
 */
final class RequestDecoder extends ChannelInboundHandlerAdapter {
    private final NettyConnection connection;
    private final NettyRpcServer server;

    RequestDecoder(NettyConnection connection, NettyRpcServer server) {
        this.connection = connection;
        this.server = server;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        // the frame's reference is the request buffer's from here on: released exactly once by it
        RequestBuffer buffer = server.requestBuffers().wrap((ByteBuf) msg);
        Request request;
        try {
            request = FrameReader.readRequest(buffer.contiguous(), server.cellDecoder());
        } catch (MalformedFrameException e) {
            buffer.release();
            connection.sendError(e.callId(), e.code(), e.getClass().getName(), e.getMessage());
            return;
        } catch (RuntimeException e) {
            buffer.release();
            connection.sendError(RpcConstants.NO_CALL_ID, ErrorCode.MALFORMED_REQUEST, MalformedFrameException.class.getName(),
                "undecodable request: " + e);
            return;
        }
        if (server.isStopping()) {
            buffer.release();
            connection.sendError(request.callId(), ErrorCode.SERVER_STOPPING, "org.heaplab.rpc.ServerStoppingException",
                "the region server is stopping");
            return;
        }
        RpcCall call = server.newCall(connection, request, buffer); // owns the buffer from here on
        if (!server.scheduler().dispatch(call)) {
            call.fail(new CallQueueTooBigException("call queue is full (" + RpcConstants.MAX_CALLQUEUE_LENGTH_KEY
                + "); back off and retry"));
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        server.connectionOpened(connection);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // calls still queued or running answer into a closed channel: Netty releases their frames
        server.connectionClosed(connection);
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (server.backpressure() && !server.isStopping()) {
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof IOException) && !server.isStopping()) {
            server.log().accept("connection " + connection.remoteAddress() + " failed: " + cause);
        }
        ctx.close(); // a reset or broken pipe: the peer is gone
    }
}
