package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bounded stage queue: tasks run in arrival order, and a full queue blocks whoever feeds it. */
@Timeout(30)
class WriteStageTest {
    @Test
    void aFullQueueBlocksTheFeederUntilTheStageCatchesUp() throws Exception {
        WriteStage stage = new WriteStage("test-stage", 1, 2);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> ran = new CopyOnWriteArrayList<>();
        stage.submit(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ran.add(0);
        });
        assertTrue(running.await(10, TimeUnit.SECONDS));
        stage.submit(() -> ran.add(1)); // the queue holds two
        stage.submit(() -> ran.add(2));
        CountDownLatch thirdQueued = new CountDownLatch(1);
        Thread feeder = new Thread(() -> {
            try {
                stage.submit(() -> ran.add(3));
                thirdQueued.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        feeder.start();
        while (feeder.getState() != Thread.State.WAITING) { // parked in the full queue's put
            assertTrue(feeder.isAlive());
            Thread.sleep(1);
        }
        assertEquals(1, thirdQueued.getCount(), "the feeder is blocked while the queue is full");
        assertEquals(2, stage.queued());
        release.countDown();
        assertTrue(thirdQueued.await(10, TimeUnit.SECONDS), "unblocked once the stage took a task");
        stage.close(); // runs what is queued, then stops
        assertEquals(List.of(0, 1, 2, 3), ran, "arrival order");
    }
}
