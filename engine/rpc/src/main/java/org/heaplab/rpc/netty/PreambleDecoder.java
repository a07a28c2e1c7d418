package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.heaplab.rpc.ErrorCode;
import org.heaplab.rpc.FrameWriter;
import org.heaplab.rpc.MalformedFrameException;
import org.heaplab.rpc.RpcConstants;

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
    private volatile long lastReadNanos = System.nanoTime();

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
        String problem = check(in);
        in.skipBytes(RpcConstants.PREAMBLE_LENGTH);
        if (problem != null) {
            in.skipBytes(in.readableBytes());
            connection.closeAfterError(FrameWriter.error(RpcConstants.NO_CALL_ID, ErrorCode.BAD_PREAMBLE,
                MalformedFrameException.class.getName(), problem));
            return;
        }
        ctx.pipeline().remove(this); // the bytes after the preamble go on to the frame decoder
    }

    /** Null when the preamble is ours, else why not (the same words as the other servers). */
    private static String check(ByteBuf in) {
        int at = in.readerIndex();
        for (int i = 0; i < RpcConstants.MAGIC.length; i++) {
            if (in.getByte(at + i) != RpcConstants.MAGIC[i]) {
                return "connection does not start with the HLAB preamble";
            }
        }
        byte version = in.getByte(at + RpcConstants.MAGIC.length);
        if (version != RpcConstants.VERSION) {
            return "protocol version " + version + " not supported; this server speaks " + RpcConstants.VERSION;
        }
        return null;
    }
}
