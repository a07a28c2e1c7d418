package org.heaplab.rpc.simple;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.heaplab.rpc.buffers.ResponseFrame;

/**
 * Non-blocking socket reads and writes as HBase's SimpleRpcServer does them: a heap buffer goes through the
 * channel at most {@link #NIO_CHUNK} bytes at a time (HBase's NIO_BUFFER_LIMIT). The JDK moves a heap
 * buffer through a temporary direct buffer as big as the call, which it then caches per thread, so one
 * large request or response would pin that much direct memory in the reader or writer for good. Direct
 * buffers (the 2.x pooled segments) go as they are.
 */
final class ChannelChunks {
    /** HBase's NIO_BUFFER_LIMIT: the most a heap buffer reads or writes in one call (64 KB). */
    static final int NIO_CHUNK = 64 * 1024;

    private ChannelChunks() {
    }

    /** A channel read or write of one buffer. */
    private interface Transfer {
        int apply(ByteBuffer b) throws IOException;
    }

    /** One read into {@code b}: what {@link SocketChannel#read} returns (-1 at the end of the stream). */
    static int read(SocketChannel channel, ByteBuffer b) throws IOException {
        return inChunk(b, channel::read);
    }

    /** {@code transfer} of a direct buffer as it is, of a heap buffer at most {@link #NIO_CHUNK} bytes of it. */
    private static int inChunk(ByteBuffer b, Transfer transfer) throws IOException {
        if (b.isDirect() || b.remaining() <= NIO_CHUNK) {
            return transfer.apply(b);
        }
        int limit = b.limit();
        b.limit(b.position() + NIO_CHUNK);
        try {
            return transfer.apply(b);
        } finally {
            b.limit(limit);
        }
    }

    /**
     * Writes as much of {@code frame} as the socket takes without blocking; true when all of it. Direct
     * buffers go in one gathering write; heap buffers in chunks.
     */
    static boolean writeSome(SocketChannel channel, ResponseFrame frame) throws IOException {
        ByteBuffer[] buffers = frame.buffers();
        if (allDirect(buffers)) {
            while (frame.remaining() > 0) {
                if (channel.write(buffers) == 0) {
                    return false;
                }
            }
            return true;
        }
        for (ByteBuffer b : buffers) {
            while (b.hasRemaining()) {
                if (inChunk(b, channel::write) == 0) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean allDirect(ByteBuffer[] buffers) {
        for (ByteBuffer b : buffers) {
            if (!b.isDirect()) {
                return false;
            }
        }
        return true;
    }
}
