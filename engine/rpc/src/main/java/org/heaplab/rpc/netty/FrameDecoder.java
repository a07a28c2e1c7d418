package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.heaplab.rpc.protocol.FrameErrors;
import org.heaplab.rpc.protocol.RpcConstants;

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
 * nothing to answer. A frame the peer stops sending (nothing received for the read timeout,
 * {@link RpcConstants#READ_TIMEOUT_KEY}, with part of a frame held) closes the connection: Netty's
 * cumulation grows only with the bytes that arrive, so a declared length costs nothing by itself, but
 * a stalled frame would hold its bytes for good.
 *
 * <p>Thread safety: one instance per channel, run by its event loop only.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    private final NettyConnection connection;
    private final int maxRequestSize;
    private final long readTimeoutNanos;
    private final Consumer<String> log;
    private long lastReadNanos = System.nanoTime();
    private ScheduledFuture<?> stallCheck;

    FrameDecoder(NettyConnection connection, int maxRequestSize, long readTimeoutNanos, Consumer<String> log) {
        this.connection = connection;
        this.maxRequestSize = maxRequestSize;
        this.readTimeoutNanos = readTimeoutNanos;
        this.log = log;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        long every = Math.max(1_000_000, Math.min(1_000_000_000, readTimeoutNanos / 4)); // a quarter of the timeout
        stallCheck = ctx.executor().scheduleAtFixedRate(() -> closeIfStalled(ctx), every, every, TimeUnit.NANOSECONDS);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        stallCheck.cancel(false);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        lastReadNanos = System.nanoTime();
        super.channelRead(ctx, msg);
    }

    /**
     * Event loop: closes the connection when part of a frame, or of the preamble before it, has waited for
     * the rest longer than the timeout.
     */
    private void closeIfStalled(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            stallCheck.cancel(false);
            return;
        }
        PreambleDecoder preamble = ctx.pipeline().get(PreambleDecoder.class); // null once the preamble arrived
        boolean partial = preamble != null ? preamble.heldBytes() > 0 : actualReadableBytes() > 0;
        long lastRead = preamble != null ? preamble.lastReadNanos() : lastReadNanos;
        if (partial && !connection.isDiscarding() && System.nanoTime() - lastRead > readTimeoutNanos) {
            log.accept("closing " + connection.remoteAddress() + ": nothing received for " + readTimeoutNanos / 1_000_000
                + " ms in the middle of a " + (preamble != null ? "preamble" : "frame") + " ("
                + RpcConstants.READ_TIMEOUT_KEY + ")");
            ctx.close();
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        // BEGIN SOLUTION netty-frame-decoder
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
            connection.closeAfterError(FrameErrors.belowHeader(length));
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
            connection.closeAfterError(FrameErrors.tooBig(callId, length, RpcConstants.MAX_REQUEST_SIZE_KEY, maxRequestSize));
            return;
        }
        if (in.readableBytes() - 4 < length) { // not 4 + length, which overflows near Integer.MAX_VALUE
            return;
        }
        in.skipBytes(4);
        out.add(in.readRetainedSlice(length));
        // END SOLUTION netty-frame-decoder
        // STUB netty-frame-decoder: throw new UnsupportedOperationException("not implemented: labs/05-netty-rpc/README.md, Build it yourself (netty-frame-decoder)");
    }
}
