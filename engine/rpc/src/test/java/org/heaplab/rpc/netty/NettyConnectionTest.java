package org.heaplab.rpc.netty;

import static org.heaplab.rpc.netty.EmbeddedRpcServer.onlyResponse;
import static org.heaplab.rpc.netty.EmbeddedRpcServer.responses;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NettyConnection} over an EmbeddedChannel: a response frame is written as it is and released
 * exactly once, when Netty is done with it (also when the channel is already closed); an error after
 * which the framing is lost is sent once and the connection closed.
 */
@Timeout(30)
class NettyConnectionTest {

    /** An OK frame whose release is counted. */
    private static ResponseFrame counted(byte[] frame, AtomicInteger releases) {
        return ResponseFrame.onHeap(frame).withReleaseHook(releases::incrementAndGet);
    }

    @Test
    void aSentFrameIsWrittenAsItIsAndReleasedWhenNettyReleasesTheWrittenBuffer() {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch);
        byte[] frame = FrameWriter.ok(3, new ParamWriter().writeString("answer").toByteArray(), List.of());
        AtomicInteger releases = new AtomicInteger();
        c.send(counted(frame, releases));
        ByteBuf written = ch.readOutbound();
        byte[] got = new byte[written.readableBytes()];
        written.getBytes(written.readerIndex(), got);
        assertArrayEquals(frame, got);
        assertEquals(0, releases.get(), "not released while the written buffer is still referenced");
        assertTrue(written.release());
        assertEquals(1, releases.get(), "released once, with the written buffer");
        assertFalse(ch.finishAndReleaseAll());
    }

    @Test
    void aFrameSentToAClosedChannelIsReleasedAtOnce() {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch);
        ch.close();
        assertFalse(c.isOpen());
        AtomicInteger releases = new AtomicInteger();
        c.send(counted(FrameWriter.ok(1, new byte[0], List.of()), releases));
        assertEquals(1, releases.get());
        assertNull(ch.readOutbound());
        assertFalse(ch.finishAndReleaseAll());
    }

    @Test
    void sendErrorAnswersAndKeepsTheConnectionOpen() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch);
        c.sendError(12, ErrorCode.UNKNOWN_METHOD, "org.heaplab.rpc.protocol.MalformedFrameException", "unknown method code 99");
        Response r = onlyResponse(ch);
        assertEquals(12, r.callId());
        assertEquals(ErrorCode.UNKNOWN_METHOD, r.error());
        assertEquals("unknown method code 99", r.message());
        assertTrue(c.isOpen());
        assertFalse(c.isDiscarding());
        assertEquals(String.valueOf(ch.remoteAddress()), c.remoteAddress());
        assertFalse(ch.finishAndReleaseAll());
    }

    @Test
    void closeAfterErrorSendsTheFirstErrorOnlyAndClosesAChannelThatCannotHalfClose() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch);
        c.closeAfterError(FrameWriter.error(-1, ErrorCode.BAD_PREAMBLE, "X", "first"));
        assertTrue(c.isDiscarding(), "the decoders drop what still arrives");
        assertFalse(c.isOpen());
        c.closeAfterError(FrameWriter.error(-1, ErrorCode.MALFORMED_REQUEST, "X", "second"));
        List<Response> sent = responses(ch);
        assertEquals(1, sent.size(), sent::toString);
        assertEquals("first", sent.get(0).message());
        assertFalse(ch.isOpen(), "EmbeddedChannel is no DuplexChannel: closed right after the write");
        assertFalse(ch.finishAndReleaseAll());
    }
}
