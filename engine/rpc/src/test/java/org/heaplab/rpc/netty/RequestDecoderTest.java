package org.heaplab.rpc.netty;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.heaplab.rpc.netty.EmbeddedRpcServer.onlyResponse;
import static org.heaplab.rpc.netty.EmbeddedRpcServer.responses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.server.RpcService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server's connection pipeline (PreambleDecoder, FrameDecoder, {@link RequestDecoder}) in an
 * EmbeddedChannel: well-formed requests become the calls the scheduler hands its handlers, with their
 * call id, method, params and cells intact, however the bytes were cut into reads; each request frame
 * stays held while its call runs and every buffer is released once it is answered.
 */
@Timeout(30)
class RequestDecoderTest {

    static KeyValue kv(String row, String value) {
        return KeyValue.create(row.getBytes(UTF_8), "f".getBytes(UTF_8), "q".getBytes(UTF_8), 1, KeyValue.Type.PUT,
            value.getBytes(UTF_8));
    }

    static byte[] put(int callId, String table, List<KeyValue> cells) {
        return FrameWriter.request(callId, Method.PUT, new ParamWriter().writeString(table).toByteArray(), cells);
    }

    /** A pooled direct buffer holding {@code parts} back to back (tracked by the leak detector). */
    static ByteBuf direct(EmbeddedChannel ch, byte[]... parts) {
        ByteBuf b = ch.alloc().directBuffer();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b;
    }

    static List<String> rowsAndValues(List<? extends Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(new String(c.row(), UTF_8) + "=" + new String(c.value(), UTF_8));
        }
        return out;
    }

    @ParameterizedTest(name = "hbase.server.allocator.pool.enabled={0}")
    @ValueSource(booleans = {false, true})
    void aPutBecomesTheCallAHandlerRunsAndItsFrameIsHeldUntilTheAnswer(boolean pooled) throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(pooled)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            ByteBuf in = direct(ch, FrameWriter.preamble(), put(7, "t1", List.of(kv("r1", "v1"), kv("r2", "v2"))));
            ch.writeInbound(in);

            EmbeddedRpcServer.Dispatched d = fixture.nextCall();
            Request r = d.request();
            assertEquals(7, r.callId());
            assertEquals(Method.PUT, r.method());
            assertEquals("t1", r.paramReader().readString());
            assertEquals(List.of("r1=v1", "r2=v2"), rowsAndValues(r.cells()));
            assertEquals(1, fixture.server.requestBuffers().outstanding(), "the frame is held while its call runs");
            assertTrue(in.refCnt() > 0, "the frame is a slice of the bytes that arrived, not a copy");

            // echo the cells: with zero-copy decoding they are views over the request frame
            d.call().reply(new RpcService.Reply(new ParamWriter().writeString("t1").toByteArray(), r.cells()));
            Response answer = onlyResponse(ch);
            assertEquals(7, answer.callId());
            assertFalse(answer.isError(), answer::toString);
            assertEquals("t1", answer.paramReader().readString());
            assertEquals(List.of("r1=v1", "r2=v2"), rowsAndValues(answer.cells()));
            assertEquals(0, fixture.server.requestBuffers().outstanding(), "released once answered");
            assertEquals(0, in.refCnt(), "the bytes that arrived are released");
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }

    @Test
    void requestsSplitAcrossManySmallReadsAreDispatchedWholeAndInOrder() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(true)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            ByteBuf all = direct(ch, FrameWriter.preamble(),
                put(1, "a", List.of(kv("r1", "x".repeat(200)))),
                FrameWriter.request(2, Method.GET, new ParamWriter().writeString("b").toByteArray(), List.of()),
                put(3, "c", List.of(kv("r3", "three"), kv("r4", "four"))));
            Random rnd = new Random(11);
            List<ByteBuf> pieces = new ArrayList<>();
            while (all.isReadable()) { // 1 to 17 bytes a read: lengths, headers and cells all cut somewhere
                pieces.add(all.readRetainedSlice(Math.min(all.readableBytes(), 1 + rnd.nextInt(17))));
            }
            all.release();
            for (ByteBuf p : pieces) {
                ch.writeInbound(p);
            }

            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                EmbeddedRpcServer.Dispatched d = fixture.nextCall();
                Request r = d.request();
                seen.add(r.callId() + " " + r.method() + " " + r.paramReader().readString() + " " + rowsAndValues(r.cells()));
                d.call().reply(RpcService.Reply.EMPTY);
            }
            assertEquals(List.of("1 PUT a [r1=" + "x".repeat(200) + "]", "2 GET b []", "3 PUT c [r3=three, r4=four]"), seen);
            List<Integer> answered = new ArrayList<>();
            for (Response r : responses(ch)) {
                assertFalse(r.isError(), r::toString);
                answered.add(r.callId());
            }
            assertEquals(List.of(1, 2, 3), answered);
            for (ByteBuf p : pieces) {
                assertEquals(0, p.refCnt(), "every read's bytes released");
            }
            assertEquals(0, all.refCnt());
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }

    @Test
    void severalRequestsInOneReadBecomeOneCallEach() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            ByteBuf in = direct(ch, FrameWriter.preamble(), put(10, "t", List.of(kv("a", "1"))),
                put(11, "t", List.of(kv("b", "2"))), put(12, "t", List.of(kv("c", "3"))));
            ch.writeInbound(in);
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                EmbeddedRpcServer.Dispatched d = fixture.nextCall();
                seen.add(d.request().callId() + " " + rowsAndValues(d.request().cells()));
                d.call().reply(RpcService.Reply.EMPTY);
            }
            assertEquals(List.of("10 [a=1]", "11 [b=2]", "12 [c=3]"), seen);
            assertEquals(3, responses(ch).size());
            assertEquals(0, in.refCnt());
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }
}
