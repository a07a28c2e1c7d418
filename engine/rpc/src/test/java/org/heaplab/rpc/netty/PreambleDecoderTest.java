package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** NettyRpcServer's {@link PreambleDecoder} in front of its {@link FrameDecoder}, in an EmbeddedChannel. */
@Timeout(30)
class PreambleDecoderTest {

    private static EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch);
        ch.pipeline().addLast("preamble", new PreambleDecoder(c));
        ch.pipeline().addLast("frame", new FrameDecoder(c, 1024, TimeUnit.SECONDS.toNanos(30), line -> { }));
        return ch;
    }

    @Test
    void aGoodPreambleGetsOutOfTheWayAndTheBytesAfterItAreAFrame() {
        EmbeddedChannel ch = channel();
        byte[] body = new byte[20];
        body[0] = 7;
        ByteBuf in = Unpooled.buffer().writeBytes(FrameWriter.preamble()).writeInt(body.length).writeBytes(body);
        ch.writeInbound(in.retain());
        assertNull(ch.pipeline().get("preamble"), "removed once read");
        ByteBuf frame = ch.readInbound();
        byte[] got = new byte[frame.readableBytes()];
        frame.readBytes(got);
        frame.release();
        assertArrayEquals(body, got);
        ch.finishAndReleaseAll();
        assertEquals(1, in.refCnt(), "the decoders released what they were given");
        in.release();
    }

    @Test
    void aForeignPreambleIsAnsweredOnceAndTheConnectionClosed() throws Exception {
        EmbeddedChannel ch = channel();
        ByteBuf in = Unpooled.buffer().writeBytes("GET / HTTP/1.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        ch.writeInbound(in);
        assertEquals(0, in.refCnt(), "the foreign bytes are released");
        ByteBuf out = ch.readOutbound();
        byte[] body = new byte[out.readInt()];
        out.readBytes(body);
        assertTrue(out.release());
        Response r = FrameReader.readResponse(body);
        assertEquals(ErrorCode.BAD_PREAMBLE, r.error());
        assertNull(ch.readOutbound(), "one answer only");
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }
}
