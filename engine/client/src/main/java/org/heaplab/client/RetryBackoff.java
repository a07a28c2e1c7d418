package org.heaplab.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a client waits before retry number {@code tries} (0 = before the second attempt): HBase's
 * schedule, the pause times RETRY_BACKOFF[tries] (the last multiplier repeats), plus up to 1% random
 * jitter so clients that failed together do not retry in lockstep. With the default 100 ms pause the
 * waits are 0.1, 0.2, 0.3, 0.5, 1, 2, 4, 10, 10, 10, 10, 20, 20, 20 ... s: about 108 s over 15 retries.
 */
public final class RetryBackoff {
    /** HBase's HConstants.RETRY_BACKOFF multipliers. */
    static final int[] RETRY_BACKOFF = {1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, 200};

    private RetryBackoff() {
    }

    /** The wait before retry {@code tries} without jitter. */
    public static long pauseMs(long baseMs, int tries) {
        int i = Math.min(Math.max(tries, 0), RETRY_BACKOFF.length - 1);
        return baseMs * RETRY_BACKOFF[i];
    }

    /** {@link #pauseMs} plus 0-1% jitter. */
    public static long pauseWithJitterMs(long baseMs, int tries) {
        long p = pauseMs(baseMs, tries);
        return p + (long) (p * 0.01 * ThreadLocalRandom.current().nextDouble());
    }
}
