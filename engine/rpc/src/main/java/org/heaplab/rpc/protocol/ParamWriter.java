package org.heaplab.rpc.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encodes a call's params: a flat sequence of big-endian fields with no names or tags; each method
 * fixes the order (engine/docs/wire-protocol.md).
 *
 * <pre>
 *   int     4 bytes
 *   long    8 bytes
 *   boolean 1 byte (0 or 1)
 *   bytes   int32 length, then length bytes
 *   string  bytes of its UTF-8 encoding
 * </pre>
 *
 * Not thread safe: one writer per call.
 */
public final class ParamWriter {
    private byte[] buf = new byte[64];
    private int pos;

    public ParamWriter writeInt(int v) {
        ensure(4);
        buf[pos++] = (byte) (v >>> 24);
        buf[pos++] = (byte) (v >>> 16);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
        return this;
    }

    public ParamWriter writeLong(long v) {
        writeInt((int) (v >>> 32));
        return writeInt((int) v);
    }

    public ParamWriter writeBoolean(boolean v) {
        ensure(1);
        buf[pos++] = (byte) (v ? 1 : 0);
        return this;
    }

    public ParamWriter writeBytes(byte[] b) {
        writeInt(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
        return this;
    }

    public ParamWriter writeString(String s) {
        return writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The encoded params in a new array. */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    private void ensure(int n) {
        if (pos + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
        }
    }
}
