package org.heaplab.rpc.netty;

import static org.heaplab.rpc.netty.EmbeddedRpcServer.onlyResponse;
import static org.heaplab.rpc.netty.RequestDecoderTest.direct;
import static org.heaplab.rpc.netty.RequestDecoderTest.kv;
import static org.heaplab.rpc.netty.RequestDecoderTest.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.List;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the server's connection pipeline answers to requests it will not run, in an EmbeddedChannel:
 * an undecodable frame is answered and the connection kept; a frame length out of range is answered and
 * the connection closed, with what followed dropped; a stopping server and a full call queue answer
 * with their error. No refused request reaches a handler, and every buffer is released.
 */
@Timeout(30)
class RequestRejectionTest {

    @Test
    void anUnknownMethodIsAnsweredAndTheConnectionStaysUsable() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(true)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            ch.writeInbound(direct(ch, FrameWriter.preamble(), FrameWriter.request(5, (byte) 99, new byte[0], List.of())));
            Response refused = onlyResponse(ch);
            assertEquals(5, refused.callId());
            assertEquals(ErrorCode.UNKNOWN_METHOD, refused.error());
            assertTrue(fixture.noCallWithin(50), "nothing dispatched");
            assertEquals(0, fixture.server.requestBuffers().outstanding(), "the refused frame is released at once");
            assertTrue(ch.isOpen());

            ch.writeInbound(direct(ch, put(6, "t", List.of(kv("r", "v")))));
            EmbeddedRpcServer.Dispatched d = fixture.nextCall();
            assertEquals(6, d.request().callId());
            d.call().reply(RpcService.Reply.EMPTY);
            assertFalse(onlyResponse(ch).isError());
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }

    @Test
    void paramsLongerThanTheFrameAreAnsweredWithTheCallIdAndTheConnectionKept() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            byte[] frame = put(8, "t", List.of());
            ByteBuffer.wrap(frame).putInt(4 + 4 + 1, 1000); // params length, past the end of the frame
            ByteBuf in = direct(ch, FrameWriter.preamble(), frame);
            ch.writeInbound(in);
            Response refused = onlyResponse(ch);
            assertEquals(8, refused.callId());
            assertEquals(ErrorCode.MALFORMED_REQUEST, refused.error());
            assertTrue(refused.message().contains("params length 1000"), refused.message());
            assertTrue(ch.isOpen(), "the framing is intact: the next request can be read");
            assertEquals(0, in.refCnt());
            assertTrue(fixture.noCallWithin(50), "nothing dispatched");
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }

    @Test
    void aFrameAboveTheMaximumIsAnsweredWithItsCallIdAndTheConnectionClosed() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(true)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            ByteBuf in = direct(ch, FrameWriter.preamble());
            in.writeInt(EmbeddedRpcServer.MAX_REQUEST + 1).writeInt(42).writeZero(20);
            in.writeBytes(put(43, "t", List.of())); // a good request after it: the framing is lost, dropped
            ch.writeInbound(in);
            Response refused = onlyResponse(ch);
            assertEquals(42, refused.callId());
            assertEquals(ErrorCode.REQUEST_TOO_BIG, refused.error());
            assertFalse(ch.isOpen(), "EmbeddedChannel cannot half-close: closed right after the error is written");
            assertEquals(0, in.refCnt(), "the dropped bytes are released");
            assertTrue(fixture.log.stream().anyMatch(l -> l.contains(RpcConstants.MAX_REQUEST_SIZE_KEY)), fixture.log::toString);
            assertTrue(fixture.noCallWithin(50), "nothing dispatched");
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }

    @Test
    void aFrameShorterThanTheHeaderIsAnsweredWithoutACallIdAndTheConnectionClosed() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            ByteBuf in = direct(ch, FrameWriter.preamble());
            in.writeInt(RpcConstants.MIN_REQUEST_BODY - 1).writeZero(RpcConstants.MIN_REQUEST_BODY - 1);
            ch.writeInbound(in);
            Response refused = onlyResponse(ch);
            assertEquals(RpcConstants.NO_CALL_ID, refused.callId());
            assertEquals(ErrorCode.MALFORMED_REQUEST, refused.error());
            assertFalse(ch.isOpen());
            assertEquals(0, in.refCnt());
            assertTrue(fixture.noCallWithin(50), "nothing dispatched");
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }

    @Test
    void aStoppingServerAnswersSERVER_STOPPINGAndClosesNewConnections() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(true)).startHandlers()) {
            EmbeddedChannel ch = fixture.connect();
            fixture.server.stop(); // never started: only marks the server stopping
            ByteBuf in = direct(ch, FrameWriter.preamble(), put(9, "t", List.of(kv("r", "v"))));
            ch.writeInbound(in);
            Response refused = onlyResponse(ch);
            assertEquals(9, refused.callId());
            assertEquals(ErrorCode.SERVER_STOPPING, refused.error());
            assertEquals(0, in.refCnt());
            assertTrue(fixture.noCallWithin(50), "nothing dispatched");

            EmbeddedChannel late = fixture.connect();
            assertFalse(late.isOpen(), "a connection accepted while stopping is closed at once");
            assertEquals(1, fixture.server.connectionCount(), "only the first connection is counted");
            assertFalse(late.finishAndReleaseAll());
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }

    @Test
    void aFullCallQueueAnswersSERVER_BUSYAndTheQueuedCallStillRuns() throws Exception {
        // one queue slot and no handler running yet: the first call fills the queue, the second is refused
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(true)
                .set(RpcConstants.MAX_CALLQUEUE_LENGTH_KEY, "1"))) {
            EmbeddedChannel ch = fixture.connect();
            ByteBuf in = direct(ch, FrameWriter.preamble(), put(1, "t", List.of(kv("a", "1"))), put(2, "t", List.of(kv("b", "2"))));
            ch.writeInbound(in);
            Response busy = onlyResponse(ch);
            assertEquals(2, busy.callId());
            assertEquals(ErrorCode.SERVER_BUSY, busy.error());
            assertEquals(1, fixture.server.requestBuffers().outstanding(), "only the queued call's frame is held");

            fixture.startHandlers();
            EmbeddedRpcServer.Dispatched d = fixture.nextCall();
            assertEquals(1, d.request().callId());
            d.call().reply(RpcService.Reply.EMPTY);
            Response ok = onlyResponse(ch);
            assertEquals(1, ok.callId());
            assertFalse(ok.isError(), ok::toString);
            assertEquals(0, in.refCnt());
            assertFalse(ch.finishAndReleaseAll(), "nothing left unread");
        }
    }
}
