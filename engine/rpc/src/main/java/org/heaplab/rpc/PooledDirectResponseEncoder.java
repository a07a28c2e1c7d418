package org.heaplab.rpc;

import java.nio.ByteBuffer;
import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * HBase 2.x responses: the frame is written into whole pooled DIRECT buffers taken from the server's
 * {@link PooledDirectRequestBuffers} (HBase's ByteBuffAllocator.allocateOneBuffer: a response takes
 * pooled buffers whatever its size), the server writes them with one gathering write and gives them
 * back. A cell served from off-heap cache memory is copied direct to direct; nothing lands on the heap
 * except when the pool is exhausted (a heap tail, counted by the pool).
 *
 * <pre>
 *   [int32 frameLength][int32 callId][byte 0][int32 paramsLength][params][int32 cellBlockLength][cells...]
 *   spread over segment 0, 1, ... (a value may straddle two segments)
 * </pre>
 */
public final class PooledDirectResponseEncoder implements ResponseEncoder {
    private final PooledDirectRequestBuffers pool;

    public PooledDirectResponseEncoder(PooledDirectRequestBuffers pool) {
        this.pool = pool;
    }

    @Override
    public ResponseFrame encode(int callId, byte[] params, List<? extends Cell> cells) {
        long cellBytes = 0;
        for (Cell c : cells) {
            cellBytes += c.getSerializedLength();
        }
        long body = 4 + 1 + 4 + (long) params.length + 4 + cellBytes;
        if (body > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("cell block of " + cellBytes + " bytes does not fit in one frame");
        }
        RequestBuffer buffer = pool.allocateWhole((int) body + 4);
        try {
            Segments out = new Segments(buffer.segments());
            out.putInt((int) body);
            out.putInt(callId);
            out.put(RpcConstants.STATUS_OK);
            out.putInt(params.length);
            out.put(ByteBuffer.wrap(params));
            out.putInt((int) cellBytes);
            for (Cell c : cells) {
                out.put(c.serializedView());
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

    /** Relative puts across consecutive segments (each filled to its limit before the next). */
    private static final class Segments {
        private final ByteBuffer[] segments;
        private final byte[] scratch = new byte[8];
        private int i;

        Segments(ByteBuffer[] segments) {
            this.segments = segments;
            for (ByteBuffer s : segments) {
                s.position(0);
            }
        }

        void putInt(int v) {
            scratch[0] = (byte) (v >>> 24);
            scratch[1] = (byte) (v >>> 16);
            scratch[2] = (byte) (v >>> 8);
            scratch[3] = (byte) v;
            put(ByteBuffer.wrap(scratch, 0, 4));
        }

        void put(byte b) {
            scratch[0] = b;
            put(ByteBuffer.wrap(scratch, 0, 1));
        }

        /** Copies {@code src} from its position to its limit (a bulk copy per segment). */
        void put(ByteBuffer src) {
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
        }
    }
}
