package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hidden test of the exercise netty-frame-decoder (engine/exercises.yml: the student edition leaves this
 * file out). What the public FrameDecoderTest does not ask: frames arriving one byte at a time, frames of
 * exactly the header's size and of exactly the maximum, and many frames in random pieces, each body
 * handed on once, in order, as a slice (not a copy) of what arrived.
 */
@Timeout(30)
class FrameDecoderHiddenTest {
    private static final int MAX = 4096;

    private static EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(new FrameDecoder(new NettyConnection(ch), MAX, TimeUnit.SECONDS.toNanos(30), l -> { }));
        return ch;
    }

    private static List<byte[]> bodies(EmbeddedChannel ch) {
        List<byte[]> out = new ArrayList<>();
        ByteBuf f;
        while ((f = ch.readInbound()) != null) {
            byte[] b = new byte[f.readableBytes()];
            f.getBytes(f.readerIndex(), b);
            out.add(b);
            f.release();
        }
        return out;
    }

    private static byte[] stream(List<byte[]> bodies) {
        ByteBuf all = Unpooled.buffer();
        for (byte[] b : bodies) {
            all.writeInt(b.length).writeBytes(b);
        }
        byte[] out = new byte[all.readableBytes()];
        all.readBytes(out);
        return out;
    }

    @Test
    void framesThatArriveOneByteAtATimeComeOutWhole() {
        EmbeddedChannel ch = channel();
        byte[] smallest = new byte[13];
        byte[] largest = new byte[MAX];
        new Random(1).nextBytes(largest);
        byte[] bytes = stream(List.of(smallest, largest, smallest));
        List<byte[]> got = new ArrayList<>();
        for (byte b : bytes) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
            got.addAll(bodies(ch));
        }
        assertEquals(3, got.size(), "the header-sized and the largest allowed frame both pass");
        assertArrayEquals(smallest, got.get(0));
        assertArrayEquals(largest, got.get(1));
        assertArrayEquals(smallest, got.get(2));
        assertNull(ch.readOutbound(), "no error for frames within the bounds");
        ch.finishAndReleaseAll();
    }

    @Test
    void manyFramesInRandomPiecesComeOutInOrderAsSlicesOfWhatArrived() {
        Random rnd = new Random(7);
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] b = new byte[13 + rnd.nextInt(300)];
            rnd.nextBytes(b);
            sent.add(b);
        }
        byte[] bytes = stream(sent);
        EmbeddedChannel ch = channel();
        List<byte[]> got = new ArrayList<>();
        for (int at = 0; at < bytes.length; ) {
            int n = Math.min(bytes.length - at, 1 + rnd.nextInt(700));
            ByteBuf piece = ch.alloc().directBuffer(n).writeBytes(bytes, at, n);
            ch.writeInbound(piece);
            ByteBuf f;
            while ((f = ch.readInbound()) != null) {
                assertNotNull(f.unwrap(), "a slice of the buffer the bytes arrived in, not a copy");
                byte[] b = new byte[f.readableBytes()];
                f.getBytes(f.readerIndex(), b);
                got.add(b);
                f.release();
            }
            at += n;
        }
        assertEquals(sent.size(), got.size());
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), got.get(i), "frame " + i);
        }
        ch.finishAndReleaseAll();
    }
}
