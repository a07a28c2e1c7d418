package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hidden test of the exercise pooled-request-buffers (engine/exercises.yml: the student edition leaves this
 * file out). What the public DirectBufferPoolTest does not ask: a request of exactly whole
 * buffers (no empty tail), a remainder of exactly the minimum (pooled) and one byte less (heap), a pool
 * that runs out in the middle of a request, the counters of each call, and a reused buffer handed out
 * cleared, whatever its last reader left in it.
 */
@Timeout(30)
class PooledRequestBuffersHiddenTest {
    private static final int SIZE = 66560;
    private static final int MIN = SIZE / 6; // 11093

    private static DirectBufferPool pool(int maxCount) {
        return new DirectBufferPool(SIZE, maxCount, MIN, false, true, message -> { });
    }

    private static List<String> shape(RequestBuffer b) {
        List<String> l = new ArrayList<>();
        for (ByteBuffer s : b.segments()) {
            l.add((s.isDirect() ? "pool " : "heap ") + s.position() + ".." + s.limit());
        }
        return l;
    }

    @Test
    void exactlyWholeBuffersLeaveNoTail() {
        DirectBufferPool p = pool(10);
        RequestBuffer b = p.allocate(2 * SIZE);
        assertEquals(List.of("pool 0.." + SIZE, "pool 0.." + SIZE), shape(b));
        assertEquals(0, p.heapFallbacks(), "no heap segment, not even an empty one");
        assertEquals(0, p.heapAllocationBytes());
        b.release();
        p.checkNoLeaks();
    }

    @Test
    void aRemainderOfExactlyTheMinimumIsPooledAndOneByteLessIsNot() {
        DirectBufferPool p = pool(10);
        assertEquals(List.of("pool 0.." + SIZE, "pool 0.." + MIN), shape(p.allocate(SIZE + MIN)));
        assertEquals(List.of("pool 0.." + SIZE, "heap 0.." + (MIN - 1)), shape(p.allocate(SIZE + MIN - 1)));
        assertEquals(List.of("heap 0.." + (MIN - 1)), shape(p.allocate(MIN - 1)));
        assertEquals(3, p.allocations());
        assertEquals(2, p.heapFallbacks(), "one per call that needed the heap");
        assertEquals(2L * (MIN - 1), p.heapAllocationBytes());
        assertEquals(2L * SIZE + MIN, p.poolAllocationBytes());
    }

    @Test
    void aPoolThatRunsOutMidRequestGivesTheRestFromTheHeapAndGetsItsBuffersBack() {
        DirectBufferPool p = pool(2);
        RequestBuffer b = p.allocate(3 * SIZE + 500);
        assertEquals(List.of("pool 0.." + SIZE, "pool 0.." + SIZE, "heap 0.." + (SIZE + 500)), shape(b));
        assertEquals(SIZE + 500, p.heapAllocationBytes());
        assertEquals(1, p.heapFallbacks());
        assertEquals(2, p.pooledInUse());
        b.release();
        assertEquals(2, p.freeBuffers(), "both pooled buffers are back, the heap tail is not pooled");
        assertEquals(0, p.pooledInUse());
        p.checkNoLeaks();
    }

    @Test
    void aReusedBufferIsHandedOutClearedToTheNewLength() {
        DirectBufferPool p = pool(1);
        RequestBuffer first = p.allocate(40000);
        ByteBuffer segment = first.segments()[0];
        segment.position(12345); // its reader consumed part of it
        first.release();
        RequestBuffer second = p.allocate(20000);
        assertEquals(List.of("pool 0..20000"), shape(second));
        assertEquals(1, p.createdBuffers(), "the same buffer, reused");
        assertEquals(20000, second.segments()[0].remaining());
        second.release();
        p.checkNoLeaks();
    }
}
