package org.heaplab.rpc.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.heaplab.rpc.buffers.ResponseFrame;

/**
 * Wraps a {@link ResponseFrame}'s buffers as one ByteBuf WITHOUT copying, whose deallocation releases
 * the frame (pooled direct buffers back to the request-buffer pool).
 *
 * <p>Why a deallocation hook rather than a write listener: Netty releases a written message exactly
 * once on every path (written, failed, channel closed, write task rejected by a stopped event loop),
 * while a listener may never run once the event loop is gone. Tying {@link ResponseFrame#release} to
 * the ByteBuf's reference count makes "released exactly once, after the write" hold everywhere.
 *
 * <p>Pitfall: epoll and NIO copy a heap ByteBuf into a direct one before writing (the JDK would do the
 * same); the heap original is released then, which for a heap frame releases nothing.
 */
final class ResponseFrameBufs {
    private ResponseFrameBufs() {
    }

    /** A ByteBuf over {@code frame}'s bytes; releasing it (Netty does, after the write) releases the frame. */
    static ByteBuf wrap(ResponseFrame frame) {
        ByteBuffer[] buffers = frame.buffers();
        FrameRelease release = new FrameRelease(frame);
        try {
            if (buffers.length == 1) {
                return one(buffers[0], release);
            }
            CompositeByteBuf all = new FrameComposite(release, buffers.length);
            for (ByteBuffer b : buffers) {
                all.addComponent(true, Unpooled.wrappedBuffer(b));
            }
            return all;
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
    }

    private static ByteBuf one(ByteBuffer b, FrameRelease release) {
        if (b.hasArray()) {
            FrameHeap h = new FrameHeap(b.array(), release);
            h.setIndex(b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
            return h;
        }
        return new FrameDirect(b, release); // Netty slices it: position..limit
    }

    /** Releases the frame once, whichever wrapper is deallocated. */
    private static final class FrameRelease implements Runnable {
        private final ResponseFrame frame;
        private final AtomicBoolean done = new AtomicBoolean();

        FrameRelease(ResponseFrame frame) {
            this.frame = frame;
        }

        @Override
        public void run() {
            if (done.compareAndSet(false, true)) {
                frame.release();
            }
        }
    }

    private static final class FrameHeap extends UnpooledHeapByteBuf {
        private final FrameRelease release;

        FrameHeap(byte[] array, FrameRelease release) {
            super(ByteBufAllocator.DEFAULT, array, array.length);
            this.release = release;
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            release.run();
        }
    }

    private static final class FrameDirect extends UnpooledDirectByteBuf {
        private final FrameRelease release;

        FrameDirect(ByteBuffer buffer, FrameRelease release) {
            super(ByteBufAllocator.DEFAULT, buffer, buffer.remaining());
            this.release = release;
        }

        @Override
        protected void deallocate() {
            // does not free the ByteBuffer (Netty only wraps it); the frame's owner gets it back
            super.deallocate();
            release.run();
        }
    }

    private static final class FrameComposite extends CompositeByteBuf {
        private final FrameRelease release;

        FrameComposite(FrameRelease release, int components) {
            super(ByteBufAllocator.DEFAULT, true, Math.max(2, components));
            this.release = release;
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            release.run();
        }
    }
}
