package org.heaplab.rpc.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes what {@link ParamWriter} writes. Every read checks bounds and throws
 * {@link MalformedFrameException} (MALFORMED_REQUEST) rather than reading past the params.
 */
public final class ParamReader {
    private final byte[] buf;
    private final int callId;
    private int pos;

    public ParamReader(byte[] buf, int callId) {
        this.buf = buf;
        this.callId = callId;
    }

    public int readInt() throws MalformedFrameException {
        need(4);
        int v = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16) | ((buf[pos + 2] & 0xff) << 8)
            | (buf[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    public long readLong() throws MalformedFrameException {
        long hi = readInt();
        return (hi << 32) | (readInt() & 0xffffffffL);
    }

    public boolean readBoolean() throws MalformedFrameException {
        need(1);
        return buf[pos++] != 0;
    }

    public byte[] readBytes() throws MalformedFrameException {
        int n = readInt();
        if (n < 0) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, "negative field length " + n);
        }
        need(n);
        byte[] b = Arrays.copyOfRange(buf, pos, pos + n);
        pos += n;
        return b;
    }

    public String readString() throws MalformedFrameException {
        return new String(readBytes(), StandardCharsets.UTF_8);
    }

    /**
     * {@link #readString()}, returning {@code known} itself when the field spells it (an ASCII string,
     * compared in place): a server that decodes the same table name on every put keeps one String.
     */
    public String readString(String known) throws MalformedFrameException {
        if (known != null && spells(known)) {
            pos += 4 + known.length();
            return known;
        }
        return readString();
    }

    private boolean spells(String s) throws MalformedFrameException {
        need(4);
        int n = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16) | ((buf[pos + 2] & 0xff) << 8) | (buf[pos + 3] & 0xff);
        if (n != s.length() || n > buf.length - pos - 4) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || buf[pos + 4 + i] != (byte) c) {
                return false;
            }
        }
        return true;
    }

    /** A count field that must be in [0, max]. */
    public int readCount(int max) throws MalformedFrameException {
        int n = readInt();
        if (n < 0 || n > max) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST, "count " + n + " out of range 0.." + max);
        }
        return n;
    }

    public boolean hasRemaining() {
        return pos < buf.length;
    }

    private void need(int n) throws MalformedFrameException {
        if (n > buf.length - pos) {
            throw new MalformedFrameException(callId, ErrorCode.MALFORMED_REQUEST,
                "params truncated: need " + n + " bytes at offset " + pos + " of " + buf.length);
        }
    }
}
