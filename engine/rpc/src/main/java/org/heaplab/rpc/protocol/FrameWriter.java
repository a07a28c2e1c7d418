package org.heaplab.rpc.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * Writes the HeapLab wire protocol: the connection preamble and request/response frames. Every
 * multi-byte number is big-endian. {@link FrameReader} decodes what this class writes.
 *
 * <pre>
 * Preamble, client to server, once per connection:
 *   +-----+-----+-----+-----+---------+
 *   | 'H' | 'L' | 'A' | 'B' | version |      version = 1
 *   +-----+-----+-----+-----+---------+
 *
 * Frame, both directions, any number:
 *   +-------------------+--------------------------------+
 *   | int32 frameLength | body (frameLength bytes)       |
 *   +-------------------+--------------------------------+
 *   a request body is at most hbase.ipc.max.request.size bytes (default 268435456)
 *
 * Request body:
 *   +--------------+-------------+-------------------+-----------+----------------------+-------+
 *   | int32 callId | byte method | int32 paramsLength| params    | int32 cellBlockLength| cells |
 *   +--------------+-------------+-------------------+-----------+----------------------+-------+
 *
 * Response body:
 *   +--------------+-------------+
 *   | int32 callId | byte status |   status 0 = OK, 1 = ERROR
 *   +--------------+-------------+
 *   OK:    | int32 paramsLength | params | int32 cellBlockLength | cells |
 *   ERROR: | int16 errorCode | int32 classLength | errorClass (UTF-8) | int32 msgLength | message (UTF-8) |
 *
 * Params: the method's fields in a fixed order, encoded by {@link ParamWriter}.
 * Cell block: KeyValues back to back in KeyValue format (see {@link KeyValue}); each is
 * self-delimiting (8 + keyLength + valueLength bytes), the block's length bounds them.
 * </pre>
 *
 * <p>Invariants: frameLength equals the body's exact size; a cell block holds whole KeyValues only;
 * an error response to a frame whose call id could not be read carries call id -1.
 *
 * <p>Every method returns a new heap byte[] holding the whole frame (length prefix included), ready
 * for one socket write; the caller owns it.
 */
public final class FrameWriter {
    private FrameWriter() {
    }

    /** The five preamble bytes. */
    public static byte[] preamble() {
        byte[] p = new byte[RpcConstants.PREAMBLE_LENGTH];
        System.arraycopy(RpcConstants.MAGIC, 0, p, 0, RpcConstants.MAGIC.length);
        p[RpcConstants.MAGIC.length] = RpcConstants.VERSION;
        return p;
    }

    public static byte[] request(int callId, Method method, byte[] params, List<? extends Cell> cells) {
        return request(callId, method.code, params, cells);
    }

    /** A request with a raw method code (tests use it to send codes the server does not know). */
    public static byte[] request(int callId, byte methodCode, byte[] params, List<? extends Cell> cells) {
        int cellBytes = cellBlockLength(cells);
        int body = 4 + 1 + 4 + params.length + 4 + cellBytes;
        ByteBuffer b = ByteBuffer.allocate(4 + body);
        b.putInt(body).putInt(callId).put(methodCode);
        b.putInt(params.length).put(params);
        putCells(b, cells, cellBytes);
        return b.array();
    }

    public static byte[] ok(int callId, byte[] params, List<? extends Cell> cells) {
        int cellBytes = cellBlockLength(cells);
        int body = 4 + 1 + 4 + params.length + 4 + cellBytes;
        ByteBuffer b = ByteBuffer.allocate(4 + body);
        b.putInt(body).putInt(callId).put(RpcConstants.STATUS_OK);
        b.putInt(params.length).put(params);
        putCells(b, cells, cellBytes);
        return b.array();
    }

    public static byte[] error(int callId, ErrorCode code, String errorClass, String message) {
        byte[] cls = errorClass.getBytes(StandardCharsets.UTF_8);
        byte[] msg = (message == null ? "" : message).getBytes(StandardCharsets.UTF_8);
        int body = 4 + 1 + 2 + 4 + cls.length + 4 + msg.length;
        ByteBuffer b = ByteBuffer.allocate(4 + body);
        b.putInt(body).putInt(callId).put(RpcConstants.STATUS_ERROR).putShort(code.code);
        b.putInt(cls.length).put(cls).putInt(msg.length).put(msg);
        return b.array();
    }

    public static byte[] response(Response r) {
        return r.isError() ? error(r.callId(), r.error(), r.errorClass(), r.message())
            : ok(r.callId(), r.params(), r.cells());
    }

    private static int cellBlockLength(List<? extends Cell> cells) {
        long n = 0;
        for (Cell kv : cells) {
            n += kv.getSerializedLength();
        }
        if (n > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("cell block of " + n + " bytes does not fit in one frame");
        }
        return (int) n;
    }

    private static void putCells(ByteBuffer b, List<? extends Cell> cells, int cellBytes) {
        b.putInt(cellBytes);
        for (Cell kv : cells) {
            kv.copyTo(b.array(), b.arrayOffset() + b.position());
            b.position(b.position() + kv.getSerializedLength());
        }
    }
}
