package org.heaplab.rpc.simple;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ResponseBacklogTest {
    @Test
    void theWaitEndsWhenTheLastConnectionIsClearedOrAtItsTimeout() throws Exception {
        ResponseBacklog backlog = new ResponseBacklog();
        assertTrue(backlog.awaitEmpty(0), "nothing waits");
        backlog.added();
        backlog.added();
        long start = System.nanoTime();
        assertFalse(backlog.awaitEmpty(TimeUnit.MILLISECONDS.toNanos(200)), "two connections still hold frames");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(190));
        backlog.cleared();
        Thread last = new Thread(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            backlog.cleared();
        });
        start = System.nanoTime();
        last.start();
        assertTrue(backlog.awaitEmpty(TimeUnit.SECONDS.toNanos(20)));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "woken by the last one, not the timeout");
        last.join();
    }
}
