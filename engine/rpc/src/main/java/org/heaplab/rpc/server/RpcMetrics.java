package org.heaplab.rpc.server;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.heaplab.rpc.protocol.Method;

/**
 * Per-method call counts, errors and latencies (from decode to answer: queue wait plus run), for the
 * metrics endpoint. Latencies go into a log-linear histogram per method (8 buckets per power of two of
 * microseconds, so a percentile is within 1/8 of its true value), cheap enough to update on every call.
 *
 * <p>Thread safety: {@link #callDone} is called by every handler at once (lock-free counters);
 * {@link #snapshot} may run concurrently and sees each counter at some recent value.
 */
public final class RpcMetrics {
    /** count, errors, mean/p50/p99/max of the total latency, and the mean queue wait, all in ms. */
    public record MethodStats(long count, long errors, double meanMs, double p50Ms, double p99Ms, double maxMs,
                              double meanQueueMs) {
    }

    private static final int SUB_BITS = 3;
    private static final int SUB = 1 << SUB_BITS;
    /** Values below 2 x SUB microseconds get a bucket each; above, SUB buckets per power of two. */
    private static final int LINEAR = 2 * SUB;
    private static final int BUCKETS = LINEAR + (63 - 4) * SUB;

    private final Map<Method, PerMethod> methods = new EnumMap<>(Method.class);

    public RpcMetrics() {
        for (Method m : Method.values()) {
            methods.put(m, new PerMethod());
        }
    }

    /** One answered call: {@code queueNanos} waiting for a handler, {@code totalNanos} from decode to answer. */
    public void callDone(Method m, long queueNanos, long totalNanos, boolean error) {
        PerMethod p = methods.get(m);
        p.count.increment();
        if (error) {
            p.errors.increment();
        }
        long micros = Math.max(0, totalNanos / 1000);
        p.totalMicros.add(micros);
        p.queueMicros.add(Math.max(0, queueNanos / 1000));
        p.maxMicros.accumulate(micros);
        p.buckets.incrementAndGet(bucket(micros));
    }

    /** Methods called at least once, in wire-code order. */
    public Map<Method, MethodStats> snapshot() {
        Map<Method, MethodStats> out = new EnumMap<>(Method.class);
        methods.forEach((m, p) -> {
            long n = p.count.sum();
            if (n > 0) {
                out.put(m, p.stats(n));
            }
        });
        return out;
    }

    static int bucket(long micros) {
        if (micros < LINEAR) {
            return (int) micros;
        }
        int exp = 63 - Long.numberOfLeadingZeros(micros); // >= SUB_BITS + 1
        int sub = (int) (micros >>> (exp - SUB_BITS)) & (SUB - 1);
        return LINEAR + (exp - SUB_BITS - 1) * SUB + sub;
    }

    /** The middle of bucket {@code b}, in microseconds. */
    static double bucketMidMicros(int b) {
        if (b < LINEAR) {
            return b;
        }
        int exp = (b - LINEAR) / SUB + SUB_BITS + 1;
        int sub = (b - LINEAR) % SUB;
        long low = (long) (SUB + sub) << (exp - SUB_BITS);
        long width = 1L << (exp - SUB_BITS);
        return low + width / 2.0;
    }

    private static final class PerMethod {
        final LongAdder count = new LongAdder();
        final LongAdder errors = new LongAdder();
        final LongAdder totalMicros = new LongAdder();
        final LongAdder queueMicros = new LongAdder();
        final LongAccumulator maxMicros = new LongAccumulator(Math::max, 0);
        final AtomicLongArray buckets = new AtomicLongArray(BUCKETS);

        MethodStats stats(long n) {
            long[] counts = new long[BUCKETS];
            long seen = 0;
            for (int i = 0; i < BUCKETS; i++) {
                counts[i] = buckets.get(i);
                seen += counts[i];
            }
            double max = maxMicros.get() / 1000.0;
            return new MethodStats(n, errors.sum(), totalMicros.sum() / 1000.0 / n,
                Math.min(max, percentile(counts, seen, 0.50)), Math.min(max, percentile(counts, seen, 0.99)), max,
                queueMicros.sum() / 1000.0 / n);
        }

        private static double percentile(long[] counts, long total, double q) {
            long rank = (long) Math.ceil(q * total);
            long cum = 0;
            for (int i = 0; i < counts.length; i++) {
                cum += counts[i];
                if (cum >= rank && cum > 0) {
                    return bucketMidMicros(i) / 1000.0;
                }
            }
            return 0;
        }
    }
}
