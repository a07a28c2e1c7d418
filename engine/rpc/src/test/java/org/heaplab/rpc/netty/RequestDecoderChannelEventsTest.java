package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RequestDecoder}'s part in a connection's life, in an EmbeddedChannel: the server counts the
 * connection while it is open, stops reading it while its unwritten responses are above the high-water
 * mark, and closes it on an exception (logging only the unexpected ones).
 */
@Timeout(30)
class RequestDecoderChannelEventsTest {

    @Test
    void theServerCountsAConnectionFromActiveToInactive() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false))) {
            EmbeddedChannel first = fixture.connect();
            EmbeddedChannel second = fixture.connect();
            assertEquals(2, fixture.server.connectionCount());
            first.close();
            assertEquals(1, fixture.server.connectionCount());
            assertFalse(second.finishAndReleaseAll());
            assertEquals(0, fixture.server.connectionCount());
            assertFalse(first.finishAndReleaseAll());
        }
    }

    @Test
    void readingPausesAboveTheHighWaterMarkAndResumesOnceTheResponsesDrain() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false))) {
            EmbeddedChannel ch = fixture.connect();
            ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(32, 64));
            ByteBuf response = ch.alloc().directBuffer(100).writeZero(100);
            ch.write(response); // queued, not flushed: 100 unwritten bytes, above the 64-byte mark
            assertFalse(ch.isWritable());
            assertFalse(ch.config().isAutoRead(), "a client that does not read is not read either");
            assertEquals(1, fixture.server.pausedConnections());

            ch.flush();
            ch.runPendingTasks(); // Netty reports the drained outbound buffer in a later task
            assertTrue(ch.isWritable());
            assertTrue(ch.config().isAutoRead(), "read again once the responses are written");
            assertEquals(0, fixture.server.pausedConnections());
            ByteBuf written = ch.readOutbound();
            assertTrue(written.release());
            assertEquals(0, response.refCnt());
            assertFalse(ch.finishAndReleaseAll());
        }
    }

    @Test
    void withoutAHighWaterMarkAConnectionIsNeverPaused() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false)
                .set(NettyRpcServer.WRITABLE_HIGH_WATERMARK_KEY, "0"))) {
            EmbeddedChannel ch = fixture.connect();
            ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(32, 64));
            ch.write(ch.alloc().directBuffer(100).writeZero(100));
            assertFalse(ch.isWritable());
            assertTrue(ch.config().isAutoRead(), "backpressure is off");
            ch.flush();
            ByteBuf written = ch.readOutbound();
            assertTrue(written.release());
            assertFalse(ch.finishAndReleaseAll());
        }
    }

    @Test
    void anUnexpectedExceptionIsLoggedAndClosesTheConnection() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false))) {
            EmbeddedChannel ch = fixture.connect();
            ch.pipeline().fireExceptionCaught(new IllegalStateException("a handler bug"));
            assertFalse(ch.isOpen());
            assertEquals(0, fixture.server.connectionCount());
            assertTrue(fixture.log.stream().anyMatch(l -> l.contains("a handler bug")), fixture.log::toString);
            assertFalse(ch.finishAndReleaseAll());
        }
    }

    @Test
    void aResetByThePeerClosesTheConnectionQuietly() throws Exception {
        try (EmbeddedRpcServer fixture = new EmbeddedRpcServer(EmbeddedRpcServer.conf(false))) {
            EmbeddedChannel ch = fixture.connect();
            ch.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
            assertFalse(ch.isOpen());
            assertEquals(0, fixture.server.connectionCount());
            assertEquals(0, fixture.log.size(), fixture.log::toString);
            assertFalse(ch.finishAndReleaseAll());
        }
    }
}
