package org.heaplab.rpc.netty;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector, made to remember what it reports so that a test can fail on it (Netty only
 * logs). Installed for the whole test JVM by the surefire property io.netty.customResourceLeakDetector
 * (engine/rpc/pom.xml); tests turn the level to PARANOID (every buffer tracked) themselves.
 *
 * <p>How Netty finds a leak: a tracked ByteBuf that becomes garbage without being released is enqueued
 * by the GC; the next tracked allocation reports it. {@link #collectLeaks()} forces both.
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
        installed = true;
    }

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        this(resourceType, samplingInterval);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add(resourceType + " leaked:" + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add(resourceType + " leaked (untraced)");
        super.reportUntracedLeak(resourceType);
    }

    /** True once Netty made its ByteBuf detector from this class (the surefire property is set). */
    static boolean installed() {
        return installed;
    }

    /** Runs the GC and tracked allocations until pending leak reports are out; returns every leak seen so far. */
    static List<String> collectLeaks() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
            for (int j = 0; j < 10; j++) {
                PooledByteBufAllocator.DEFAULT.directBuffer(16).release(); // each tracked allocation polls the queue
            }
        }
        return new ArrayList<>(LEAKS);
    }

    static void clear() {
        LEAKS.clear();
    }
}
