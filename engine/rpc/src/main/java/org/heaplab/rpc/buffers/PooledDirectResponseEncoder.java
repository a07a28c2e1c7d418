package org.heaplab.rpc.buffers;

import java.nio.ByteBuffer;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.rpc.protocol.RpcConstants;

/**
 * HBase 2.x responses: the frame is written into whole pooled DIRECT buffers taken from the server's
 * {@link DirectBufferPool} ({@link DirectBufferPool#allocateResponse}, HBase's
 * ByteBuffAllocator.allocateOneBuffer: a response takes pooled buffers whatever its size), the server
 * writes them with one gathering write and gives them back. A cell served from off-heap cache memory is copied direct to direct; nothing lands on the heap
 * except when the pool is exhausted (a heap tail, counted by the pool).
 *
 * <pre>
 *   [int32 frameLength][int32 callId][byte 0][int32 paramsLength][params][int32 cellBlockLength][cells...]
 *   spread over segment 0, 1, ... (a value may straddle two segments)
 * </pre>
 */
public final class PooledDirectResponseEncoder implements ResponseEncoder {
    private final DirectBufferPool pool;

    public PooledDirectResponseEncoder(DirectBufferPool pool) {
        this.pool = pool;
    }

    @Override
    public ResponseFrame encode(int callId, byte[] params, List<? extends Cell> cells) {
        long cellBytes = 0;
        for (int i = 0; i < cells.size(); i++) { // indexed: no iterator per response
            cellBytes += cells.get(i).getSerializedLength();
        }
        long body = 4 + 1 + 4 + (long) params.length + 4 + cellBytes;
        if (body > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("cell block of " + cellBytes + " bytes does not fit in one frame");
        }
        RequestBuffer buffer = pool.allocateResponse((int) body + 4);
        try {
            Segments out = new Segments(buffer.segments());
            out.putInt((int) body);
            out.putInt(callId);
            out.put(RpcConstants.STATUS_OK);
            out.putInt(params.length);
            out.put(params);
            out.putInt((int) cellBytes);
            for (int i = 0; i < cells.size(); i++) {
                out.put(cells.get(i).serializedView());
            }
            for (ByteBuffer s : buffer.segments()) {
                s.flip();
            }
            return ResponseFrame.pooled(buffer);
        } catch (RuntimeException e) {
            buffer.release();
            throw e;
        }
    }

    @Override
    public String describe() {
        return "PooledDirectResponseEncoder (responses in pooled direct buffers of " + pool.bufferSize()
            + " bytes, one gathering write, cache blocks released after the write)";
    }

    /**
     * Relative puts across consecutive segments (each filled to its limit before the next). Numbers and
     * params are written byte by byte where they land (a value may straddle two segments): no wrapper
     * buffer per field, so encoding a response makes no heap garbage beyond this cursor.
     */
    private static final class Segments {
        private final ByteBuffer[] segments;
        private int i;

        Segments(ByteBuffer[] segments) {
            this.segments = segments;
            for (ByteBuffer s : segments) {
                s.position(0);
            }
        }

        void putInt(int v) {
            put((byte) (v >>> 24));
            put((byte) (v >>> 16));
            put((byte) (v >>> 8));
            put((byte) v);
        }

        void put(byte b) {
            while (!segments[i].hasRemaining()) {
                i++;
            }
            segments[i].put(b);
        }

        /** Copies all of {@code src} (a bulk copy per segment). */
        void put(byte[] src) {
            // BEGIN SOLUTION pooled-response
            int pos = 0;
            while (pos < src.length) {
                ByteBuffer dst = segments[i];
                if (!dst.hasRemaining()) {
                    i++;
                    continue;
                }
                int n = Math.min(dst.remaining(), src.length - pos);
                dst.put(src, pos, n);
                pos += n;
            }
            // END SOLUTION pooled-response
            // STUB pooled-response: throw new UnsupportedOperationException("not implemented: labs/05-netty-rpc/README.md, Build it yourself (pooled-response)");
        }

        /** Copies {@code src} from its position to its limit (a bulk copy per segment). */
        void put(ByteBuffer src) {
            // BEGIN SOLUTION pooled-response
            while (src.hasRemaining()) {
                ByteBuffer dst = segments[i];
                if (!dst.hasRemaining()) {
                    i++;
                    continue;
                }
                int n = Math.min(dst.remaining(), src.remaining());
                dst.put(dst.position(), src, src.position(), n);
                dst.position(dst.position() + n);
                src.position(src.position() + n);
            }
            // END SOLUTION pooled-response
            // STUB pooled-response: throw new UnsupportedOperationException("not implemented: labs/05-netty-rpc/README.md, Build it yourself (pooled-response)");
        }
    }
}
