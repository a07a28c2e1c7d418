package org.heaplab.server;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Heap bytes allocated since start-up by this process's threads, per thread group, from the JVM's
 * per-thread allocation counters (com.sun.management.ThreadMXBean#getThreadAllocatedBytes): the heap
 * side of the write and read paths, which is what young GCs collect.
 *
 * <pre>
 *   group     threads (by name)
 *   handler   RpcServer.handler=*, WritePath.* (the staged path's append and post-sync stages)
 *   reader    RpcServer.reader=*, .listener, .responder (SimpleRpcServer), RpcServer.netty-* (event loops)
 *   wal       *-consumer, *-syncer-N (a WAL's ring consumer and syncers)
 *   flush     MemStoreFlusher, *compact*
 *   other     everything else (GC recorder, cache writers, the sampler, JVM threads)
 * </pre>
 *
 * A thread's counter dies with the thread, so totals are a running tally: {@link #sample} (every
 * {@link #SAMPLE_INTERVAL_MS} ms on a daemon thread, and on every snapshot) records each live thread's
 * bytes; a thread gone since the last sample adds its last recorded bytes to its group for good.
 * Totals never go backwards. Limit: what a thread allocated between its last sample and its end is lost
 * (at most one interval's worth; a thread that lives less than an interval may be missed entirely);
 * the server's own threads live as long as the server, so this only touches short-lived helpers.
 *
 * <p>Process-wide, like the JVM counters: in-process tests with several servers see their sum. When the
 * JVM lacks the counters, {@link Snapshot#supported()} is false and every figure 0.
 *
 * <p>Thread safety: {@link #sample} and {@link #snapshot} are synchronized; call from any thread.
 */
public final class ThreadAllocations {
    /** How often the sampler thread records every thread's counter. */
    static final long SAMPLE_INTERVAL_MS = 1000;

    /** Thread groups in report order. */
    public enum Group {
        HANDLER("handler"), READER("reader"), WAL("wal"), FLUSH("flush"), OTHER("other");

        public final String jsonName;

        Group(String jsonName) {
            this.jsonName = jsonName;
        }
    }

    /** Bytes per group since start-up (dead threads included), and the threads alive at the last sample. */
    public record Snapshot(boolean supported, Map<Group, Long> byGroup, int threads) {
        public long totalBytes() {
            long n = 0;
            for (long v : byGroup.values()) {
                n += v;
            }
            return n;
        }
    }

    private static final class Tracked {
        final Group group;
        long lastBytes;

        Tracked(Group group) {
            this.group = group;
        }
    }

    private static volatile ThreadAllocations process;

    /** com.sun's extension of the imported java.lang.management.ThreadMXBean (same simple name). */
    private final com.sun.management.ThreadMXBean bean;
    private final Map<Long, Tracked> live = new HashMap<>();
    private final EnumMap<Group, Long> ended = new EnumMap<>(Group.class);

    ThreadAllocations(ThreadMXBean mx) {
        this.bean = supportedBean(mx);
        for (Group g : Group.values()) {
            ended.put(g, 0L);
        }
    }

    /** The process's tracker; the first call starts its sampler thread (when the JVM has the counters). */
    public static ThreadAllocations process() {
        ThreadAllocations p = process;
        if (p != null) {
            return p;
        }
        synchronized (ThreadAllocations.class) {
            if (process == null) {
                ThreadAllocations t = new ThreadAllocations(ManagementFactory.getThreadMXBean());
                if (t.supported()) {
                    t.startSampler();
                }
                process = t;
            }
            return process;
        }
    }

    /**
     * The counters' bean, enabling them if the JVM has them switched off; null when it has none. (Written
     * in full: com.sun's ThreadMXBean extends the imported java.lang.management one of the same name.)
     */
    private static com.sun.management.ThreadMXBean supportedBean(ThreadMXBean mx) {
        if (!(mx instanceof com.sun.management.ThreadMXBean sun)) {
            return null;
        }
        try {
            if (!sun.isThreadAllocatedMemorySupported()) {
                return null;
            }
            if (!sun.isThreadAllocatedMemoryEnabled()) {
                sun.setThreadAllocatedMemoryEnabled(true);
            }
            return sun;
        } catch (UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    public boolean supported() {
        return bean != null;
    }

    private void startSampler() {
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(SAMPLE_INTERVAL_MS);
                } catch (InterruptedException e) {
                    return;
                }
                sample();
            }
        }, "heaplab-alloc-sampler");
        t.setDaemon(true);
        t.start();
    }

    /** Records every live thread's counter and moves threads gone since the last sample to their group's tally. */
    synchronized void sample() {
        if (bean == null) {
            return;
        }
        long[] ids = bean.getAllThreadIds();
        long[] bytes = bean.getThreadAllocatedBytes(ids);
        ThreadInfo[] names = null; // read only when a thread is new: its name, and so its group, is read once
        Set<Long> seen = new HashSet<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] < 0) {
                continue; // ended between the two calls: treated as gone below
            }
            Tracked t = live.get(ids[i]);
            if (t == null) {
                if (names == null) {
                    names = bean.getThreadInfo(ids, 0);
                }
                if (names[i] == null) {
                    continue; // ended meanwhile
                }
                t = new Tracked(groupOf(names[i].getThreadName()));
                live.put(ids[i], t);
            }
            t.lastBytes = Math.max(t.lastBytes, bytes[i]);
            seen.add(ids[i]);
        }
        for (Iterator<Map.Entry<Long, Tracked>> it = live.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Tracked> e = it.next();
            if (!seen.contains(e.getKey())) {
                Tracked t = e.getValue();
                ended.merge(t.group, t.lastBytes, Long::sum);
                it.remove();
            }
        }
    }

    /** A fresh sample: bytes per group since start-up (0 everywhere when unsupported). */
    public synchronized Snapshot snapshot() {
        EnumMap<Group, Long> by = new EnumMap<>(Group.class);
        for (Group g : Group.values()) {
            by.put(g, 0L);
        }
        if (bean == null) {
            return new Snapshot(false, by, 0);
        }
        sample();
        by.putAll(ended);
        for (Tracked t : live.values()) {
            by.merge(t.group, t.lastBytes, Long::sum);
        }
        return new Snapshot(true, by, live.size());
    }

    /** The group of a thread named {@code name} (table above). */
    static Group groupOf(String name) {
        if (name.startsWith("RpcServer.handler") || name.startsWith("WritePath.")) {
            return Group.HANDLER;
        }
        if (name.startsWith("RpcServer.reader") || name.startsWith("RpcServer.listener")
            || name.startsWith("RpcServer.responder") || name.startsWith("RpcServer.netty")) {
            return Group.READER;
        }
        if (name.endsWith("-consumer") || name.matches(".*-syncer-\\d+")) {
            return Group.WAL;
        }
        if (name.startsWith("MemStoreFlusher") || name.toLowerCase(Locale.ROOT).contains("compact")) {
            return Group.FLUSH;
        }
        return Group.OTHER;
    }
}
