package org.heaplab.core.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class MemstorePressureTest {
    private static void awaitBlocked(MemstorePressure p, int n) {
        while (p.blockedWriters() < n) {
            Thread.onSpinWait();
        }
    }

    @Test
    void writersBelowTheLimitPassStraightThrough() throws IOException {
        AtomicInteger requests = new AtomicInteger();
        MemstorePressure p = new MemstorePressure(1000, requests::incrementAndGet);
        p.add(999);
        p.awaitBelowLimit();
        assertEquals(0, requests.get());
    }

    @Test
    void blockedWritersResumeOnlyUnderTheLowerMark() throws Exception {
        CountDownLatch flushRequested = new CountDownLatch(1);
        MemstorePressure p = new MemstorePressure(1000, flushRequested::countDown);
        p.add(1200);
        CountDownLatch released = new CountDownLatch(2);
        AtomicReference<Throwable> error = new AtomicReference<>();
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(() -> {
                try {
                    p.awaitBelowLimit();
                    released.countDown();
                } catch (Throwable e) {
                    error.set(e);
                }
            });
            t.setDaemon(true);
            t.start();
        }
        assertTrue(flushRequested.await(10, TimeUnit.SECONDS), "a blocked writer asks for a flush");
        awaitBlocked(p, 2);
        p.release(240); // 960: under the limit but not under the lower mark (950)
        // no signal is sent above the lower mark, so both writers are still waiting right now
        assertEquals(2, p.blockedWriters(), "still above the lower mark");
        assertEquals(2, released.getCount());
        p.release(20); // 940
        assertTrue(released.await(10, TimeUnit.SECONDS), "writers resume once a flush brings the total under 0.95");
        assertEquals(0, p.blockedWriters());
        assertEquals(null, error.get());
    }

    @Test
    void closeWakesBlockedWritersWithAnError() throws Exception {
        MemstorePressure p = new MemstorePressure(10, () -> { });
        p.add(100);
        AtomicReference<Throwable> error = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                p.awaitBelowLimit();
            } catch (Throwable e) {
                error.set(e);
            }
            done.countDown();
        });
        t.start();
        awaitBlocked(p, 1);
        p.close();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertTrue(error.get() instanceof IOException);
        assertThrows(IOException.class, p::awaitBelowLimit);
    }
}
