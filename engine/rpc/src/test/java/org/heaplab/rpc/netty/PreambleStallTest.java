package org.heaplab.rpc.netty;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that sends part of the preamble and stops is closed after the read timeout, like one that stops
 * in the middle of a frame; one that has sent nothing yet may wait. The preamble's bytes are held by the
 * {@link PreambleDecoder}, before the {@link FrameDecoder} whose stall check closes the connection.
 */
@Timeout(30)
class PreambleStallTest {
    private static final long TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private final List<String> log = new CopyOnWriteArrayList<>();

    private EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyConnection c = new NettyConnection(ch);
        ch.pipeline().addLast("preamble", new PreambleDecoder(c));
        ch.pipeline().addLast("frame", new FrameDecoder(c, 1024, TIMEOUT_NANOS, log::add));
        return ch;
    }

    /** Runs the channel's scheduled stall checks until it closes or two seconds passed. */
    private static void runChecks(EmbeddedChannel ch) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (ch.isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(5); // let the timeout pass: the check compares with System.nanoTime()
            ch.runScheduledPendingTasks();
        }
    }

    @Test
    void aPreambleThatStopsHalfWayIsClosed() throws Exception {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(RpcConstants.MAGIC, 0, 3)); // "HLA", then nothing
        runChecks(ch);
        assertFalse(ch.isOpen(), "a half-sent preamble is closed after the read timeout");
        assertTrue(log.stream().anyMatch(l -> l.contains("in the middle of a preamble")), log::toString);
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectionThatSentNothingYetStaysOpen() throws Exception {
        EmbeddedChannel silent = channel();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < until) {
            Thread.sleep(5);
            silent.runScheduledPendingTasks();
        }
        assertTrue(silent.isOpen(), "nothing half-sent: nothing to time out");
        assertTrue(log.isEmpty(), log::toString);
        silent.finishAndReleaseAll();
    }
}
