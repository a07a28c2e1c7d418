package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameReader;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * NettyRpcServer's {@link FrameDecoder} alone, in an EmbeddedChannel (no socket, no event loop thread): how it
 * cuts the byte stream, what it answers to bad lengths, when it closes a stalled frame, and that every buffer
 * it was given or made is released.
 */
@Timeout(30)
class FrameDecoderTest {
    private static final int MAX = 1024;
    private final List<String> log = new CopyOnWriteArrayList<>();

    private EmbeddedChannel channel(long readTimeoutNanos) {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch);
        ch.pipeline().addLast(new FrameDecoder(c, MAX, readTimeoutNanos, log::add));
        return ch;
    }

    private static byte[] body(int length, int fill) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    private static ByteBuf frames(byte[]... bodies) {
        ByteBuf out = Unpooled.buffer();
        for (byte[] b : bodies) {
            out.writeInt(b.length).writeBytes(b);
        }
        return out;
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    /** The error frames the decoder wrote back, decoded; each written ByteBuf released. */
    private static List<Response> errors(EmbeddedChannel ch) throws Exception {
        List<Response> out = new ArrayList<>();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            try {
                byte[] body = new byte[b.readInt()];
                b.readBytes(body);
                out.add(FrameReader.readResponse(body));
            } finally {
                assertTrue(b.release(), "the decoder's error frame is released by whoever writes it");
            }
        }
        return out;
    }

    @Test
    void framesAreCutWhereverTheBytesBreakAndEverySliceIsReleased() {
        EmbeddedChannel ch = channel(TimeUnit.SECONDS.toNanos(30));
        byte[] first = body(13, 1);
        byte[] second = body(40, 2);
        byte[] third = body(100, 3);
        byte[] all = bytes(frames(first, second, third));
        int cut = 4 + 13 + 4 + 40 + 30; // two frames and part of the third
        ByteBuf head = Unpooled.wrappedBuffer(Arrays.copyOfRange(all, 0, cut));
        ByteBuf tail = Unpooled.wrappedBuffer(Arrays.copyOfRange(all, cut, all.length));
        ch.writeInbound(head.retain()); // our own reference stays, to check the decoder gave back its own
        List<byte[]> got = new ArrayList<>();
        ByteBuf f;
        while ((f = ch.readInbound()) != null) {
            got.add(bytes(f));
            f.release();
        }
        assertEquals(2, got.size());
        assertArrayEquals(first, got.get(0));
        assertArrayEquals(second, got.get(1));
        ch.writeInbound(tail.retain());
        ByteBuf last = ch.readInbound();
        assertArrayEquals(third, bytes(last));
        last.release();
        assertFalse(ch.finish(), "nothing left over");
        assertEquals(1, head.refCnt(), "the decoder released what it was given");
        assertEquals(1, tail.refCnt(), "the decoder released what it was given");
        head.release();
        tail.release();
    }

    @Test
    void aLengthBelowTheHeaderIsAnsweredAndEverythingAfterItDropped() throws Exception {
        EmbeddedChannel ch = channel(TimeUnit.SECONDS.toNanos(30));
        ByteBuf in = Unpooled.buffer().writeInt(RpcConstants.MIN_REQUEST_BODY - 1).writeBytes(body(64, 9));
        ch.writeInbound(in);
        assertEquals(0, in.refCnt(), "the dropped bytes are released");
        List<Response> answers = errors(ch);
        assertEquals(1, answers.size());
        assertEquals(ErrorCode.MALFORMED_REQUEST, answers.get(0).error());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void aLengthAboveTheMaximumIsAnsweredWithItsCallIdOnceTheCallIdArrives() throws Exception {
        EmbeddedChannel ch = channel(TimeUnit.SECONDS.toNanos(30));
        ch.writeInbound(Unpooled.buffer().writeInt(MAX + 1));
        assertEquals(List.of(), errors(ch), "the call id has not come yet");
        ch.writeInbound(Unpooled.buffer().writeInt(42).writeBytes(body(16, 0)));
        List<Response> answers = errors(ch);
        assertEquals(1, answers.size());
        assertEquals(ErrorCode.REQUEST_TOO_BIG, answers.get(0).error());
        assertEquals(42, answers.get(0).callId());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void aLengthNearIntegerMaxWaitsForItsBytesInsteadOfOverflowing() {
        // hbase.ipc.max.request.size may be set as high as an int goes; 4 + length must not wrap around
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(new FrameDecoder(new NettyConnection(ch), Integer.MAX_VALUE, TimeUnit.SECONDS.toNanos(30),
            log::add));
        ByteBuf in = Unpooled.buffer().writeInt(Integer.MAX_VALUE - 1).writeBytes(body(64, 3));
        ch.writeInbound(in);
        assertNull(ch.readInbound(), "the frame's body has not arrived: nothing is cut");
        assertTrue(ch.isActive(), "and nothing failed: the decoder waits for the rest");
        ch.finishAndReleaseAll();
    }

    @Test
    void aStalledFrameIsClosedAfterTheReadTimeoutButAnIdleConnectionIsNot() throws Exception {
        EmbeddedChannel idle = channel(TimeUnit.MILLISECONDS.toNanos(20));
        EmbeddedChannel stalled = channel(TimeUnit.MILLISECONDS.toNanos(20));
        idle.writeInbound(frames(body(13, 1))); // one whole frame, then nothing: between frames
        ((ByteBuf) idle.readInbound()).release();
        stalled.writeInbound(Unpooled.buffer().writeInt(500).writeBytes(body(10, 1))); // 10 of 500 bytes, then nothing
        // the stall check is a scheduled task of the channel: run it until the stalled frame is closed
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (stalled.isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(5);
            stalled.runScheduledPendingTasks();
        }
        idle.runScheduledPendingTasks(); // its last read is older still than the stalled one's
        assertTrue(idle.isOpen(), "a client between frames may stay idle");
        assertFalse(stalled.isOpen(), "a frame that stopped coming is closed");
        assertTrue(log.stream().anyMatch(l -> l.contains("in the middle of a frame")), log::toString);
        idle.finishAndReleaseAll();
        stalled.finishAndReleaseAll();
    }
}
