package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.heaplab.rpc.protocol.Method;
import org.junit.jupiter.api.Test;

class RpcMetricsTest {
    private static long ms(double v) {
        return (long) (v * TimeUnit.MILLISECONDS.toNanos(1));
    }

    @Test
    void countsErrorsAndPercentilesWithinAnEighth() {
        RpcMetrics m = new RpcMetrics();
        // 1000 GETs: 1 ms .. 1000 ms uniformly; queue wait 0.5 ms each; every 10th an error
        for (int i = 1; i <= 1000; i++) {
            m.callDone(Method.GET, ms(0.5), ms(i), i % 10 == 0);
        }
        m.callDone(Method.PUT, 0, ms(3), false);
        Map<Method, RpcMetrics.MethodStats> snap = m.snapshot();
        assertEquals(java.util.Set.of(Method.GET, Method.PUT), snap.keySet(), "only methods that were called");
        RpcMetrics.MethodStats get = snap.get(Method.GET);
        assertEquals(1000, get.count());
        assertEquals(100, get.errors());
        assertEquals(500.5, get.meanMs(), 0.01);
        assertEquals(1000, get.maxMs(), 0.01);
        assertEquals(0.5, get.meanQueueMs(), 0.01);
        assertTrue(Math.abs(get.p50Ms() - 500) <= 500 / 8.0, "p50 " + get.p50Ms());
        assertTrue(Math.abs(get.p99Ms() - 990) <= 990 / 8.0, "p99 " + get.p99Ms());
        assertTrue(get.p99Ms() <= get.maxMs());
        assertEquals(3, snap.get(Method.PUT).p50Ms(), 3 / 8.0);
    }

    @Test
    void bucketsAreMonotoneAndTheirMiddlesFallInside() {
        int last = -1;
        for (long us = 0; us < 5_000_000; us += 1 + us / 50) {
            int b = RpcMetrics.bucket(us);
            assertTrue(b >= last, "bucket of " + us);
            last = b;
            double mid = RpcMetrics.bucketMidMicros(b);
            assertTrue(Math.abs(mid - us) <= Math.max(1, us / 8.0), us + " us in a bucket around " + mid);
        }
        assertTrue(RpcMetrics.bucket(Long.MAX_VALUE / 1000) > last);
    }
}
