package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The counters every request-buffer allocator keeps: each count lands in its own getter, a tracked buffer
 * is outstanding until released, and the leak check names what is still out (with where it was made when
 * leak detection is on). The allocators' own tests check they count the right things.
 */
class RequestBufferCountersTest {

    private static RequestBuffer buffer(RequestBufferCounters counters, int length) {
        return RequestBuffer.of(new ByteBuffer[] {ByteBuffer.allocate(length)}, length, counters::released);
    }

    @Test
    void eachCountHasItsOwnGetter() {
        RequestBufferCounters c = new RequestBufferCounters("request buffer", false);
        c.countAllocation();
        c.countAllocation();
        c.countHeapBytes(300);
        c.countPoolBytes(66560);
        c.countPoolBytes(40);
        c.countHeapFallback();
        assertEquals(2, c.allocations());
        assertEquals(300, c.heapBytes());
        assertEquals(66600, c.poolBytes());
        assertEquals(1, c.heapFallbacks());
        assertEquals(0, c.outstanding(), "counting bytes tracks no buffer");
    }

    @Test
    void aTrackedBufferIsOutstandingUntilReleased() {
        RequestBufferCounters c = new RequestBufferCounters("request buffer", false);
        RequestBuffer a = c.track(buffer(c, 10));
        RequestBuffer b = c.track(buffer(c, 20));
        assertEquals(2, c.outstanding());
        a.release();
        assertEquals(1, c.outstanding());
        b.release();
        assertEquals(0, c.outstanding());
        c.checkNoLeaks();
    }

    @Test
    void theLeakCheckNamesWhatIsOutAndWhereItWasMade() {
        RequestBufferCounters c = new RequestBufferCounters("Netty request frame", true);
        RequestBuffer kept = c.track(buffer(c, 20000));
        c.track(buffer(c, 5)).release();
        IllegalStateException e = assertThrows(IllegalStateException.class, c::checkNoLeaks);
        assertEquals("1 Netty request frame(s) were never released", e.getMessage());
        assertEquals(1, e.getSuppressed().length, "only the buffer still out has a site");
        assertTrue(e.getSuppressed()[0].getMessage().contains("20000 bytes"), e.getSuppressed()[0].getMessage());
        kept.release();
        c.checkNoLeaks();
    }

    @Test
    void withoutLeakDetectionTheCheckStillCountsButRemembersNoSite() {
        RequestBufferCounters c = new RequestBufferCounters("request buffer", false);
        RequestBuffer kept = c.track(buffer(c, 8));
        IllegalStateException e = assertThrows(IllegalStateException.class, c::checkNoLeaks);
        assertEquals("1 request buffer(s) were never released", e.getMessage());
        assertEquals(0, e.getSuppressed().length);
        kept.release();
        c.checkNoLeaks();
    }

    @Test
    void theHeapAllocatorCountsThroughItsCounters() {
        HeapRequestBuffers heap = new HeapRequestBuffers();
        RequestBuffer b = heap.allocate(1000);
        assertEquals(1, heap.counters().allocations());
        assertEquals(1000, heap.heapAllocationBytes());
        assertEquals(0, heap.poolAllocationBytes());
        assertEquals(0, heap.heapFallbacks(), "a heap buffer is the plan on this path, not a fallback");
        assertEquals(1, heap.outstanding());
        assertThrows(IllegalStateException.class, heap::checkNoLeaks);
        b.release();
        assertEquals(0, heap.outstanding());
        heap.checkNoLeaks();
    }
}
