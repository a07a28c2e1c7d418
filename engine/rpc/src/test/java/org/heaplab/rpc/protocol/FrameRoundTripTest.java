package org.heaplab.rpc.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.rpc.client.RemoteException;
import org.junit.jupiter.api.Test;

public class FrameRoundTripTest {

    /** A PUT cell of family info0, qualifier 0, timestamp 42 (the other rpc test packages build theirs here). */
    public static KeyValue kv(String row, String value) {
        return KeyValue.create(row.getBytes(StandardCharsets.UTF_8), "info0".getBytes(StandardCharsets.UTF_8),
            "0".getBytes(StandardCharsets.UTF_8), 42L, KeyValue.Type.PUT, value.getBytes(StandardCharsets.UTF_8));
    }

    /** The body of a frame: everything after the int32 length, which must match. */
    static byte[] body(byte[] frame) {
        int len = FrameReader.readInt(frame, 0);
        assertEquals(frame.length - 4, len, "frame length prefix");
        return Arrays.copyOfRange(frame, 4, frame.length);
    }

    @Test
    void requestRoundTripWithParamsAndCells() throws Exception {
        byte[] params = new ParamWriter().writeString("TestTable").writeBytes(new byte[] {1, 2, 3}).writeLong(-7L)
            .writeInt(99).writeBoolean(true).toByteArray();
        List<KeyValue> cells = List.of(kv("r1", "v1"), kv("r2", ""), kv("row-3", "x".repeat(1000)));
        Request r = FrameReader.readRequest(body(FrameWriter.request(12345, Method.PUT, params, cells)));
        assertEquals(12345, r.callId());
        assertEquals(Method.PUT, r.method());
        assertEquals(cells, r.cells());
        ParamReader p = r.paramReader();
        assertEquals("TestTable", p.readString());
        assertArrayEquals(new byte[] {1, 2, 3}, p.readBytes());
        assertEquals(-7L, p.readLong());
        assertEquals(99, p.readInt());
        assertTrue(p.readBoolean());
        assertFalse(p.hasRemaining());
    }

    /** readString(known) returns the very String it was given when the field spells it, else decodes as readString. */
    @Test
    void aKnownStringIsReturnedItselfAndAnythingElseDecoded() throws Exception {
        String known = "TestTable";
        byte[] params = new ParamWriter().writeString("TestTable").writeString("TestTablf").writeString("Test")
            .writeString("tëst").writeInt(42).toByteArray();
        ParamReader in = new ParamReader(params, 1);
        assertTrue(known == in.readString(known), "the same object: no String per call");
        String other = in.readString(known);
        assertEquals("TestTablf", other);
        assertFalse(known == other);
        assertEquals("Test", in.readString(known));
        assertEquals("tëst", in.readString("tëst"), "a non-ASCII name is decoded, never matched by bytes");
        assertEquals(42, in.readInt(), "each form consumed exactly its field");
        assertThrows(MalformedFrameException.class, () -> new ParamReader(new byte[] {0, 0, 0, 9, 'T'}, 1).readString(known),
            "a truncated field is still refused");
    }

    @Test
    void everyMethodCodeRoundTrips() throws Exception {
        for (Method m : Method.values()) {
            Request r = FrameReader.readRequest(body(FrameWriter.request(1, m, new byte[0], List.of())));
            assertEquals(m, r.method());
            assertTrue(r.cells().isEmpty());
        }
        assertNull(Method.of((byte) 0));
    }

    @Test
    void okResponseRoundTrip() throws Exception {
        List<KeyValue> cells = List.of(kv("a", "1"), kv("b", "2"));
        Response r = FrameReader.readResponse(body(FrameWriter.ok(7, new ParamWriter().writeInt(5).toByteArray(), cells)));
        assertFalse(r.isError());
        assertEquals(7, r.callId());
        assertEquals(5, r.paramReader().readInt());
        assertEquals(cells, r.cells());
    }

    @Test
    void errorResponseRoundTrip() throws Exception {
        Response r = FrameReader.readResponse(body(FrameWriter.error(9, ErrorCode.TABLE_NOT_FOUND,
            "org.heaplab.core.region.TableNotFoundException", "table 'x' does not exist — ünïcode")));
        assertTrue(r.isError());
        assertEquals(9, r.callId());
        assertEquals(ErrorCode.TABLE_NOT_FOUND, r.error());
        assertEquals("org.heaplab.core.region.TableNotFoundException", r.errorClass());
        assertEquals("table 'x' does not exist — ünïcode", r.message());
        RemoteException e = RemoteException.of(r);
        assertEquals(ErrorCode.TABLE_NOT_FOUND, e.code());
    }

    @Test
    void errorCodesRoundTrip() {
        for (ErrorCode c : ErrorCode.values()) {
            assertEquals(c, ErrorCode.of(c.code));
        }
        assertEquals(ErrorCode.SERVER_ERROR, ErrorCode.of((short) 999));
    }

    @Test
    void preambleRoundTripAndRejection() throws Exception {
        FrameReader.readPreamble(new DataInputStream(new ByteArrayInputStream(FrameWriter.preamble())));
        MalformedFrameException bad = assertThrows(MalformedFrameException.class, () -> FrameReader.readPreamble(
            new DataInputStream(new ByteArrayInputStream("GET /".getBytes(StandardCharsets.US_ASCII)))));
        assertEquals(ErrorCode.BAD_PREAMBLE, bad.code());
        byte[] v2 = FrameWriter.preamble();
        v2[4] = 2;
        MalformedFrameException version = assertThrows(MalformedFrameException.class,
            () -> FrameReader.readPreamble(new DataInputStream(new ByteArrayInputStream(v2))));
        assertTrue(version.getMessage().contains("version 2"));
        assertThrows(IOException.class, () -> FrameReader.readPreamble(new DataInputStream(new ByteArrayInputStream(new byte[2]))));
    }

    @Test
    void unknownMethodKeepsTheCallId() {
        byte[] body = body(FrameWriter.request(77, (byte) 99, new byte[0], List.of()));
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> FrameReader.readRequest(body));
        assertEquals(ErrorCode.UNKNOWN_METHOD, e.code());
        assertEquals(77, e.callId());
    }

    @Test
    void inconsistentLengthsAreMalformed() {
        byte[] good = body(FrameWriter.request(5, Method.PUT, new byte[] {1, 2}, List.of(kv("r", "v"))));
        // params length larger than the frame
        byte[] b1 = good.clone();
        b1[5] = 0x7f;
        assertEquals(ErrorCode.MALFORMED_REQUEST,
            assertThrows(MalformedFrameException.class, () -> FrameReader.readRequest(b1)).code());
        // a cell whose lengths overrun its block
        byte[] b2 = good.clone();
        int cellStart = 4 + 1 + 4 + 2 + 4;
        b2[cellStart + 3] = 100;
        assertEquals(ErrorCode.MALFORMED_REQUEST,
            assertThrows(MalformedFrameException.class, () -> FrameReader.readRequest(b2)).code());
        // truncated header
        assertThrows(MalformedFrameException.class, () -> FrameReader.readRequest(Arrays.copyOf(good, 8)));
        // trailing bytes after the cell block
        byte[] b3 = Arrays.copyOf(good, good.length + 3);
        assertThrows(MalformedFrameException.class, () -> FrameReader.readRequest(b3));
        // row length pointing past the key
        byte[] b4 = good.clone();
        b4[cellStart + 8] = 0x7f;
        assertThrows(MalformedFrameException.class, () -> FrameReader.readRequest(b4));
    }

    @Test
    void paramReaderNeverReadsPastTheEnd() {
        ParamReader r = new ParamReader(new ParamWriter().writeInt(1000).toByteArray(), 3);
        MalformedFrameException e = assertThrows(MalformedFrameException.class, r::readBytes);
        assertEquals(3, e.callId());
        assertThrows(MalformedFrameException.class, () -> new ParamReader(new byte[3], 1).readInt());
        assertThrows(MalformedFrameException.class, () -> new ParamReader(new ParamWriter().writeInt(-1).toByteArray(), 1).readBytes());
        assertThrows(MalformedFrameException.class, () -> new ParamReader(new ParamWriter().writeInt(11).toByteArray(), 1).readCount(10));
    }
}
