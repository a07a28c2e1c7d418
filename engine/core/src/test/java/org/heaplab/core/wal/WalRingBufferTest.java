package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class WalRingBufferTest {
    @Test
    void rejectsCapacityThatIsNotAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new WalRingBuffer<String>(12));
    }

    /** Producers wrap a tiny ring many times; the consumer sees every sequence once, in order. */
    @Test
    @Timeout(60)
    void manyProducersWrapATinyRingInOrder() throws Exception {
        WalRingBuffer<long[]> ring = new WalRingBuffer<>(8);
        int producers = 4;
        int each = 2000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    long s = ring.claim();
                    ring.publish(s, new long[] {s});
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        long next = 0;
        long total = (long) producers * each;
        int spins = 0;
        while (next < total) {
            long high = ring.highestPublished(next);
            if (high < next) {
                WalRingBuffer.backOff(spins++);
                continue;
            }
            spins = 0;
            for (long s = next; s <= high; s++) {
                assertEquals(s, ring.take(s)[0]);
            }
            ring.release(high);
            next = high + 1;
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(total - 1, ring.claimed());
    }
}
