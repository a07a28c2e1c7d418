package org.heaplab.rpc.protocol;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * Decodes what {@link FrameWriter} writes. Decoding never reads outside the body it is given and
 * reports any inconsistency as {@link MalformedFrameException}. Decoded params are copies; request
 * cells are what the server's {@link CellDecoder} makes of them (copies, or views over the request
 * buffer); response cells are views into the body array, which the result then owns.
 */
public final class FrameReader {
    /** KeyValue views into a heap body: responses, and requests decoded from a byte[]. */
    private static final CellDecoder HEAP_VIEWS = new CellDecoder() {
        @Override
        public Cell decode(ByteBuffer body, int offset, int length) {
            return new KeyValue(body.array(), body.arrayOffset() + offset, length);
        }

        @Override
        public String describe() {
            return "KeyValue views into the frame's byte[]";
        }
    };

    private FrameReader() {
    }

    /**
     * Reads and checks the five preamble bytes.
     *
     * @throws MalformedFrameException BAD_PREAMBLE when the magic or version differ
     * @throws EOFException when the peer closes first
     */
    public static void readPreamble(DataInputStream in) throws IOException {
        byte[] p = new byte[RpcConstants.PREAMBLE_LENGTH];
        in.readFully(p);
        checkPreamble(p);
    }

    /**
     * Checks the five preamble bytes a non-blocking server collected.
     *
     * @throws MalformedFrameException BAD_PREAMBLE when the magic or version differ
     */
    public static void checkPreamble(byte[] p) throws MalformedFrameException {
        if (!Arrays.equals(p, 0, RpcConstants.MAGIC.length, RpcConstants.MAGIC, 0, RpcConstants.MAGIC.length)) {
            throw new MalformedFrameException(RpcConstants.NO_CALL_ID, ErrorCode.BAD_PREAMBLE,
                "connection does not start with the HLAB preamble");
        }
        if (p[RpcConstants.MAGIC.length] != RpcConstants.VERSION) {
            throw new MalformedFrameException(RpcConstants.NO_CALL_ID, ErrorCode.BAD_PREAMBLE,
                "protocol version " + p[RpcConstants.MAGIC.length] + " not supported; this server speaks "
                    + RpcConstants.VERSION);
        }
    }

    /** Decodes a request body (the bytes after the length prefix); the cells are KeyValue views into it. */
    public static Request readRequest(byte[] body) throws MalformedFrameException {
        return readRequest(ByteBuffer.wrap(body), HEAP_VIEWS);
    }

    /**
     * Decodes a request body held in {@code body} (index 0 to its limit; position ignored, absolute
     * reads only). The params are copied; the cells are whatever {@code decoder} makes of them (copies
     * or views over {@code body}, valid until its owner reuses it).
     */
    public static Request readRequest(ByteBuffer body, CellDecoder decoder) throws MalformedFrameException {
        int size = body.limit();
        if (size < RpcConstants.MIN_REQUEST_BODY) {
            throw new MalformedFrameException(RpcConstants.NO_CALL_ID, ErrorCode.MALFORMED_REQUEST,
                "request frame of " + size + " bytes is shorter than the " + RpcConstants.MIN_REQUEST_BODY
                    + "-byte header");
        }
        int callId = body.getInt(0);
        byte code = body.get(4);
        Method method = Method.of(code);
        if (method == null) {
            throw new MalformedFrameException(callId, ErrorCode.UNKNOWN_METHOD, "unknown method code " + (code & 0xff));
        }
        int pos = 5;
        int paramsLength = readLength(body, pos, callId, "params");
        pos += 4;
        byte[] params = new byte[paramsLength];
        body.get(pos, params, 0, paramsLength);
        pos += paramsLength;
        int cellLength = readLength(body, pos, callId, "cell block");
        pos += 4;
        if (pos + cellLength != size) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST,
                "frame has " + (size - pos - cellLength) + " bytes after its cell block");
        }
        return new Request(callId, method, params, readCells(body, pos, cellLength, callId, decoder));
    }

    /** Decodes a response body (the bytes after the length prefix). */
    public static Response readResponse(byte[] body) throws MalformedFrameException {
        if (body.length < RpcConstants.MIN_RESPONSE_BODY) {
            throw new MalformedFrameException(RpcConstants.NO_CALL_ID, ErrorCode.MALFORMED_REQUEST,
                "response frame of " + body.length + " bytes is too short");
        }
        int callId = readInt(body, 0);
        byte status = body[4];
        int pos = 5;
        if (status == RpcConstants.STATUS_ERROR) {
            if (body.length < pos + 2) {
                throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, "error response truncated");
            }
            ErrorCode code = ErrorCode.of((short) (((body[pos] & 0xff) << 8) | (body[pos + 1] & 0xff)));
            pos += 2;
            int clsLength = readLength(body, pos, callId, "error class");
            pos += 4;
            String cls = new String(body, pos, clsLength, StandardCharsets.UTF_8);
            pos += clsLength;
            int msgLength = readLength(body, pos, callId, "error message");
            pos += 4;
            String msg = new String(body, pos, msgLength, StandardCharsets.UTF_8);
            return Response.error(callId, code, cls, msg);
        }
        if (status != RpcConstants.STATUS_OK) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, "unknown response status " + status);
        }
        int paramsLength = readLength(body, pos, callId, "params");
        pos += 4;
        byte[] params = Arrays.copyOfRange(body, pos, pos + paramsLength);
        pos += paramsLength;
        int cellLength = readLength(body, pos, callId, "cell block");
        pos += 4;
        return Response.ok(callId, params, readCells(body, pos, cellLength, callId));
    }

    /** Reads the cells of a request's cell block with {@code decoder}. */
    private static List<Cell> readCells(ByteBuffer body, int pos, int length, int callId, CellDecoder decoder)
        throws MalformedFrameException {
        List<Cell> cells = new ArrayList<>(countCells(body, pos, pos + length)); // exact: no growth per request
        int end = pos + length;
        while (pos < end) {
            if (end - pos < KeyValue.ROW_OFFSET) {
                throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, "cell block ends inside a cell header");
            }
            long cellLength = KeyValue.ROW_OFFSET + (body.getInt(pos) & 0xffffffffL) + (body.getInt(pos + 4) & 0xffffffffL);
            if (cellLength > end - pos) {
                throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST,
                    "cell of " + cellLength + " bytes overruns its cell block");
            }
            try {
                Cell kv = decoder.decode(body, pos, (int) cellLength);
                checkKey(kv);
                cells.add(kv);
            } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, "bad cell: " + e.getMessage());
            }
            pos += (int) cellLength;
        }
        return cells;
    }

    /** How many cells the block holds, by their length fields (a malformed block: what fits, checked later). */
    private static int countCells(ByteBuffer body, int pos, int end) {
        int n = 0;
        while (end - pos >= KeyValue.ROW_OFFSET) {
            long cellLength = KeyValue.ROW_OFFSET + (body.getInt(pos) & 0xffffffffL) + (body.getInt(pos + 4) & 0xffffffffL);
            if (cellLength > end - pos) {
                break;
            }
            n++;
            pos += (int) cellLength;
        }
        return n;
    }

    /** Reads the cells of a response's cell block; the KeyValues are views into {@code body}. */
    private static List<KeyValue> readCells(byte[] body, int pos, int length, int callId) throws MalformedFrameException {
        List<KeyValue> cells = new ArrayList<>();
        for (Cell c : readCells(ByteBuffer.wrap(body), pos, length, callId, HEAP_VIEWS)) {
            cells.add((KeyValue) c);
        }
        return cells;
    }

    /** Rejects a key whose row and family lengths do not fit in its key length. */
    private static void checkKey(Cell kv) {
        int keyLength = kv.keyLength();
        if (keyLength < KeyValue.KEY_INFRASTRUCTURE_SIZE || kv.rowLength() + KeyValue.KEY_INFRASTRUCTURE_SIZE > keyLength) {
            throw new IllegalArgumentException("row length exceeds the key length " + keyLength);
        }
        int familyLength = kv.familyLength();
        if (familyLength < 0 || kv.rowLength() + familyLength + KeyValue.KEY_INFRASTRUCTURE_SIZE > keyLength) {
            throw new IllegalArgumentException("family length exceeds the key length " + keyLength);
        }
    }

    private static int readLength(byte[] body, int pos, int callId, String what) throws MalformedFrameException {
        if (pos + 4 > body.length) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, what + " length missing");
        }
        int n = readInt(body, pos);
        if (n < 0 || n > body.length - pos - 4) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST,
                what + " length " + n + " exceeds the frame");
        }
        return n;
    }

    private static int readLength(ByteBuffer body, int pos, int callId, String what) throws MalformedFrameException {
        if (pos + 4 > body.limit()) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, what + " length missing");
        }
        int n = body.getInt(pos);
        if (n < 0 || n > body.limit() - pos - 4) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST,
                what + " length " + n + " exceeds the frame");
        }
        return n;
    }

    static int readInt(byte[] b, int o) {
        return ((b[o] & 0xff) << 24) | ((b[o + 1] & 0xff) << 16) | ((b[o + 2] & 0xff) << 8) | (b[o + 3] & 0xff);
    }
}
