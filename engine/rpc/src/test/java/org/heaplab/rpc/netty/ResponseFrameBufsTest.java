package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.buffers.TestResponseFrames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ResponseFrameBufs}: a response frame's buffers seen as one ByteBuf without a copy (only the
 * bytes between each buffer's position and limit), whose deallocation releases the frame exactly once,
 * after its last reference, also when Netty writes it through a channel.
 */
@Timeout(30)
class ResponseFrameBufsTest {
    private final AtomicInteger releases = new AtomicInteger();

    private static byte[] bytes(int from, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    private static byte[] readable(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    @Test
    void aHeapBufferIsSharedFromItsPositionToItsLimitAndReleasedWithTheLastReference() {
        byte[] array = bytes(0, 32);
        ByteBuffer b = ByteBuffer.wrap(array, 4, 20).slice(); // array offset 4
        b.position(3); // bytes 7 .. 23 of the array
        ResponseFrame f = TestResponseFrames.over(releases::incrementAndGet, b);
        ByteBuf buf = ResponseFrameBufs.wrap(f);
        assertTrue(buf.hasArray());
        assertSame(array, buf.array(), "no copy");
        assertArrayEquals(bytes(7, 17), readable(buf));
        buf.retain();
        assertFalse(buf.release());
        assertEquals(0, releases.get(), "still referenced");
        assertTrue(buf.release());
        assertEquals(1, releases.get());
        assertEquals(0, buf.refCnt());
    }

    @Test
    void aDirectBufferIsSharedFromItsPositionToItsLimit() {
        ByteBuffer b = ByteBuffer.allocateDirect(16);
        b.put(bytes(40, 16)).position(2).limit(10);
        ByteBuf buf = ResponseFrameBufs.wrap(TestResponseFrames.over(releases::incrementAndGet, b));
        assertTrue(buf.isDirect());
        assertArrayEquals(bytes(42, 8), readable(buf));
        buf.setByte(buf.readerIndex(), 99);
        assertEquals(99, b.get(2), "the frame's own memory, not a copy");
        assertTrue(buf.release());
        assertEquals(1, releases.get());
    }

    @Test
    void severalBuffersBecomeOneByteBufOfTheirBytesInOrderReleasedOnce() {
        ByteBuffer first = ByteBuffer.allocateDirect(8).put(bytes(0, 8)).flip();
        ByteBuffer second = ByteBuffer.wrap(bytes(8, 5));
        ByteBuffer third = ByteBuffer.allocateDirect(4).put(bytes(13, 4)).flip();
        ByteBuf buf = ResponseFrameBufs.wrap(TestResponseFrames.over(releases::incrementAndGet, first, second, third));
        assertArrayEquals(bytes(0, 17), readable(buf));
        assertTrue(buf.release());
        assertEquals(1, releases.get(), "one release of the frame for its three buffers");
    }

    @Test
    void aFrameWrittenThroughAChannelIsReleasedOnceTheWrittenBufferIs() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.writeAndFlush(ResponseFrameBufs.wrap(TestResponseFrames.over(releases::incrementAndGet, ByteBuffer.wrap(bytes(0, 9)))));
        ByteBuf written = ch.readOutbound();
        assertArrayEquals(bytes(0, 9), readable(written));
        assertEquals(0, releases.get());
        assertTrue(written.release());
        assertEquals(1, releases.get());
        assertFalse(ch.finishAndReleaseAll());
    }
}
