package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.heaplab.rpc.buffers.RequestBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NettyRequestBuffers}: a request frame ByteBuf seen as a {@link RequestBuffer} over the same
 * memory (its readable bytes, zero-based), which takes over the frame's reference and gives it back
 * exactly once; outstanding frames are counted so that a leak shows.
 */
@Timeout(30)
class NettyRequestBuffersTest {
    private final NettyRequestBuffers buffers = new NettyRequestBuffers(PooledByteBufAllocator.DEFAULT);

    private static byte[] bytes(int from, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    private static byte[] contents(ByteBuffer b) {
        byte[] out = new byte[b.limit()];
        b.get(0, out);
        return out;
    }

    @Test
    void aWrappedFrameIsItsReadableBytesInPlaceAndReleasedExactlyOnce() {
        ByteBuf frame = PooledByteBufAllocator.DEFAULT.directBuffer(64).writeBytes(bytes(0, 40));
        frame.skipBytes(4); // a length prefix already read
        RequestBuffer rb = buffers.wrap(frame);
        assertEquals(36, rb.length());
        assertEquals(1, rb.segments().length);
        ByteBuffer body = rb.contiguous();
        assertEquals(0, body.position(), "zero-based");
        assertArrayEquals(bytes(4, 36), contents(body));
        frame.setByte(4, 77);
        assertEquals(77, body.get(0), "the frame's own memory, not a copy");
        assertEquals(1, buffers.outstanding());
        assertEquals(1, frame.refCnt(), "the reference is the request buffer's now");

        rb.release();
        assertEquals(0, frame.refCnt());
        assertEquals(0, buffers.outstanding());
        assertThrows(IllegalStateException.class, rb::release, "a second release is refused");
        assertEquals(0, buffers.outstanding(), "and not counted twice");
        buffers.checkNoLeaks();
    }

    @Test
    void aFrameInSeveralComponentsIsSeveralSegmentsAndOneContiguousCopy() {
        CompositeByteBuf frame = Unpooled.compositeBuffer();
        frame.addComponent(true, PooledByteBufAllocator.DEFAULT.directBuffer(10).writeBytes(bytes(0, 10)));
        frame.addComponent(true, PooledByteBufAllocator.DEFAULT.directBuffer(7).writeBytes(bytes(10, 7)));
        RequestBuffer rb = buffers.wrap(frame);
        assertEquals(2, rb.segments().length);
        assertArrayEquals(bytes(0, 10), contents(rb.segments()[0]));
        assertArrayEquals(bytes(10, 7), contents(rb.segments()[1]));
        assertArrayEquals(bytes(0, 17), contents(rb.contiguous()));
        rb.release();
        assertEquals(0, frame.refCnt(), "the composite and its components released");
        assertEquals(0, buffers.outstanding());
    }

    @Test
    void heapAndDirectFramesAreCountedApart() {
        RequestBuffer heap = buffers.wrap(Unpooled.buffer(16).writeZero(16));
        RequestBuffer direct = buffers.wrap(PooledByteBufAllocator.DEFAULT.directBuffer(24).writeZero(24));
        assertEquals(16, buffers.heapAllocationBytes());
        assertEquals(24, buffers.poolAllocationBytes());
        assertEquals(2, buffers.allocations());
        assertEquals(2, buffers.outstanding());
        heap.release();
        direct.release();
        assertEquals(0, buffers.outstanding());
    }

    @Test
    void anAllocatedBufferHasTheLengthAskedForAndGoesBackOnRelease() {
        RequestBuffer rb = buffers.allocate(100);
        assertEquals(100, rb.length());
        assertEquals(100, rb.contiguous().limit());
        assertEquals(1, buffers.outstanding());
        rb.release();
        assertTrue(rb.isReleased());
        assertEquals(0, buffers.outstanding());
    }

    @Test
    void checkNoLeaksNamesTheFramesStillOutstanding() {
        RequestBuffer a = buffers.allocate(8);
        RequestBuffer b = buffers.allocate(8);
        IllegalStateException e = assertThrows(IllegalStateException.class, buffers::checkNoLeaks);
        assertTrue(e.getMessage().startsWith("2 Netty request frame(s)"), e.getMessage());
        a.release();
        b.release();
        buffers.checkNoLeaks();
    }
}
