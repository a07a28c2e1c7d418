package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.function.Consumer;
import org.heaplab.rpc.ErrorCode;
import org.heaplab.rpc.FrameWriter;
import org.heaplab.rpc.MalformedFrameException;
import org.heaplab.rpc.RpcConstants;

/**
 * Second stage: cuts the byte stream into request frames ({@code int32 length | body}) and passes each
 * body on as a retained slice of Netty's pooled cumulation buffer: no copy; the slice is released with
 * its call's request buffer.
 *
 * <pre>
 *   length &lt; 13 (the request header)            -&gt; MALFORMED_REQUEST (call id -1), close
 *   length &gt; hbase.ipc.max.request.size         -&gt; read the call id, REQUEST_TOO_BIG, close
 *   fewer than 4 + length bytes so far          -&gt; wait (Netty keeps accumulating)
 *   otherwise                                   -&gt; body slice to the RequestDecoder
 * </pre>
 * A frame cut short by the peer closing is dropped with the cumulation when the channel goes inactive:
 * nothing to answer.
 *
 * <p>Thread safety: one instance per channel, run by its event loop only.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    private final NettyConnection connection;
    private final int maxRequestSize;
    private final Consumer<String> log;

    FrameDecoder(NettyConnection connection, int maxRequestSize, Consumer<String> log) {
        this.connection = connection;
        this.maxRequestSize = maxRequestSize;
        this.log = log;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (connection.isDiscarding()) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < 4) {
            return;
        }
        int at = in.readerIndex();
        int length = in.getInt(at);
        if (length < RpcConstants.MIN_REQUEST_BODY) {
            in.skipBytes(in.readableBytes());
            connection.closeAfterError(FrameWriter.error(RpcConstants.NO_CALL_ID, ErrorCode.MALFORMED_REQUEST,
                MalformedFrameException.class.getName(), "frame length " + length + " is below the "
                    + RpcConstants.MIN_REQUEST_BODY + "-byte request header; closing the connection"));
            return;
        }
        if (length > maxRequestSize) {
            if (in.readableBytes() < 8) {
                return; // the call id, so that the client can tell which call was refused
            }
            int callId = in.getInt(at + 4);
            in.skipBytes(in.readableBytes());
            log.accept("closing " + connection.remoteAddress() + ": request of " + length + " bytes exceeds "
                + RpcConstants.MAX_REQUEST_SIZE_KEY);
            connection.closeAfterError(FrameWriter.error(callId, ErrorCode.REQUEST_TOO_BIG,
                "org.heaplab.rpc.RequestTooBigException", "request of " + length + " bytes exceeds "
                    + RpcConstants.MAX_REQUEST_SIZE_KEY + " (" + maxRequestSize + "); closing the connection"));
            return;
        }
        if (in.readableBytes() < 4 + length) {
            return;
        }
        in.skipBytes(4);
        out.add(in.readRetainedSlice(length));
    }
}
