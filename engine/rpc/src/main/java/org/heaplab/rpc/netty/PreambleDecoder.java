package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * First stage of a connection's pipeline: waits for the five preamble bytes ("HLAB" + version 1), then
 * removes itself, and Netty hands whatever followed them to the {@link FrameDecoder}. A wrong preamble
 * gets one BAD_PREAMBLE error (call id -1) and the connection is closed ({@link NettyConnection#closeAfterError}).
 * A preamble the peer stops sending half-way is closed by the {@link FrameDecoder}'s stall check.
 *
 * <p>Thread safety: one instance per channel, run by its event loop only.
 */
final class PreambleDecoder extends ByteToMessageDecoder {
    private final NettyConnection connection;
    private long lastReadNanos = System.nanoTime(); // event loop only, as the stall check that reads it

    PreambleDecoder(NettyConnection connection) {
        this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        lastReadNanos = System.nanoTime();
        super.channelRead(ctx, msg);
    }

    /** Bytes of a preamble that has not fully arrived (the {@link FrameDecoder}'s stall check closes on them too). */
    int heldBytes() {
        return actualReadableBytes();
    }

    /** When the last bytes arrived at this stage. */
    long lastReadNanos() {
        return lastReadNanos;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (connection.isDiscarding()) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < RpcConstants.PREAMBLE_LENGTH) {
            return;
        }
        byte[] preamble = new byte[RpcConstants.PREAMBLE_LENGTH];
        in.readBytes(preamble);
        try {
            FrameReader.checkPreamble(preamble); // the same check and words as SimpleRpcServer's
        } catch (MalformedFrameException e) {
            in.skipBytes(in.readableBytes());
            connection.closeAfterError(FrameWriter.error(e.callId(), e.code(), e.getClass().getName(), e.getMessage()));
            return;
        }
        ctx.pipeline().remove(this); // the bytes after the preamble go on to the frame decoder
    }
}
