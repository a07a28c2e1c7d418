package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class StopOnceTest {
    @Test
    void onlyTheFirstStopRuns() {
        StopOnce once = new StopOnce();
        AtomicInteger runs = new AtomicInteger();

        once.run(runs::incrementAndGet);
        once.run(runs::incrementAndGet);

        assertEquals(1, runs.get());
    }

    @Test
    void awaitReturnsOnlyOnceTheStopHasFinished() throws InterruptedException {
        StopOnce once = new StopOnce();
        CountDownLatch inStop = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread stopper = new Thread(() -> once.run(() -> {
            inStop.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        stopper.start();
        assertTrue(inStop.await(10, TimeUnit.SECONDS));

        CountDownLatch awaited = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                once.await();
                awaited.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        assertFalse(awaited.await(200, TimeUnit.MILLISECONDS), "await returned while the stop was still running");

        release.countDown();
        assertTrue(awaited.await(10, TimeUnit.SECONDS));
        stopper.join();
        waiter.join();
    }

    @Test
    @Timeout(10)
    void aStopThatThrowsStillCountsAsFinished() throws InterruptedException {
        StopOnce once = new StopOnce();

        assertThrows(IllegalStateException.class, () -> once.run(() -> {
            throw new IllegalStateException("close failed");
        }));

        once.await(); // times out if the failed stop were not counted
        AtomicInteger runs = new AtomicInteger();
        once.run(runs::incrementAndGet);
        assertEquals(0, runs.get());
    }
}
