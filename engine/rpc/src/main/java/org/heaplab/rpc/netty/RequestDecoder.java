package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.heaplab.rpc.server.RequestIntake;
import org.heaplab.rpc.server.RpcCall;

/**
 * Last stage: wraps each frame in a {@link RequestBuffer} (no copy) and hands it to the server's
 * {@link RequestIntake}, which both servers share: decoded into an {@link RpcCall} and dispatched to the
 * scheduler, on the event loop (no reader thread, no extra hop: the handler thread that takes the call is
 * the next one), or answered with why not (undecodable, server stopping, queue full).
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
        server.intake().take(connection, buffer);
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
