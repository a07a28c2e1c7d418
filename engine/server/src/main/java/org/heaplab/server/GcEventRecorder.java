package org.heaplab.server;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.io.Closeable;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.heaplab.core.conf.EngineEnv;
import org.heaplab.core.util.JsonWriter;

/**
 * Appends one JSON line per GC pause to a file (heaplab.gc.events.file, by default
 * $ENGINE_LOG_DIR/gc-events.jsonl), from the JVM's GC notifications, so analysis never scrapes GC
 * logs. Fields (docs/contracts.md section 4):
 *
 * <pre>
 * {"start_epoch_ms", "uptime_ms", "collector", "action", "cause", "duration_ms",
 *  "heap_before_bytes", "heap_after_bytes", "young"}
 * </pre>
 *
 * <p>heap_*_bytes sum the used bytes of the heap pools only; young is true for minor collections
 * (action "end of minor GC"). Notifications of concurrent cycle collectors (ZGC/Shenandoah
 * "Cycles", G1 "Concurrent GC") report whole concurrent cycles, not pauses, and are skipped.
 * Each line is flushed as it is written, so a killed server loses at most the line being written.
 *
 * <p>{@link #pauseLog()} keeps the same pauses in memory for the metrics endpoint (counts, total, maximum
 * and the most recent ones), whether or not a file is written.
 *
 * <p>Thread safety: notifications arrive on a JMX thread; writes are serialised on this object.
 */
public final class GcEventRecorder implements Closeable, NotificationListener {
    /** heaplab.gc.events.file: EngineEnv fills in its default, so the key is defined there, in core. */
    public static final String FILE_KEY = EngineEnv.GC_EVENTS_FILE_KEY;

    private final Writer out;
    private static final long JVM_START_MS = ManagementFactory.getRuntimeMXBean().getStartTime();
    private static final Set<String> HEAP_POOLS = heapPools();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private boolean closed;
    private volatile Consumer<String> afterWrite = line -> { };

    private GcEventRecorder(Writer out) {
        this.out = out;
    }

    private static Set<String> heapPools() {
        Set<String> names = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                names.add(pool.getName());
            }
        }
        return names;
    }

    /** Opens {@code file} for appending (creating its directory) and starts listening. */
    public static GcEventRecorder start(Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        GcEventRecorder r = new GcEventRecorder(w);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(r, null, null);
                r.emitters.add(e);
            }
        }
        return r;
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        if (isConcurrentCycle(info.getGcName())) {
            return;
        }
        write(toJson(info));
    }

    /** The process-wide in-memory pause log, listening from its first use on (cheap; never stops). */
    public static synchronized PauseLog pauseLog() {
        if (pauseLog == null) {
            PauseLog log = new PauseLog();
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter e) {
                    e.addNotificationListener(log, null, null);
                }
            }
            pauseLog = log;
        }
        return pauseLog;
    }

    private static PauseLog pauseLog;

    static boolean isConcurrentCycle(String collector) {
        return collector.endsWith("Cycles") || collector.contains("Concurrent");
    }

    String toJson(GarbageCollectionNotificationInfo info) {
        return toJsonWriter(info).toString();
    }

    private static JsonWriter toJsonWriter(GarbageCollectionNotificationInfo info) {
        GcInfo gc = info.getGcInfo();
        return new JsonWriter()
            .put("start_epoch_ms", JVM_START_MS + gc.getStartTime())
            .put("uptime_ms", gc.getStartTime())
            .put("collector", info.getGcName())
            .put("action", info.getGcAction())
            .put("cause", info.getGcCause())
            .put("duration_ms", gc.getDuration())
            .put("heap_before_bytes", heapUsed(gc.getMemoryUsageBeforeGc()))
            .put("heap_after_bytes", heapUsed(gc.getMemoryUsageAfterGc()))
            .put("young", info.getGcAction().contains("minor"));
    }

    private static long heapUsed(Map<String, MemoryUsage> pools) {
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : pools.entrySet()) {
            if (HEAP_POOLS.contains(e.getKey())) {
                used += e.getValue().getUsed();
            }
        }
        return used;
    }

    private synchronized void write(String line) {
        if (closed) {
            return;
        }
        try {
            out.write(line);
            out.write('\n');
            out.flush();
            afterWrite.accept(line);
        } catch (IOException e) {
            ServerLog.warn("cannot append to the GC events file: " + e.getMessage());
        }
    }

    /** Tests: called with each line after it is flushed (on the notification thread). */
    void afterWrite(Consumer<String> listener) {
        this.afterWrite = listener;
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(this);
            } catch (ListenerNotFoundException ignored) {
                // already gone
            }
        }
        out.close();
    }

    /**
     * GC pauses kept in memory since the log started: their number, total and longest duration, and the
     * last {@link #RECENT} of them as gc-events.jsonl objects. Thread safe (notifications arrive on a JMX
     * thread, snapshots are taken on the endpoint's).
     */
    public static final class PauseLog implements NotificationListener {
        public static final int RECENT = 10;
        private final ArrayDeque<JsonWriter> recent = new ArrayDeque<>();
        private long pauses;
        private long totalMs;
        private long maxMs;

        PauseLog() { // one per process: GcEventRecorder.pauseLog(); tests make their own
        }

        @Override
        public void handleNotification(Notification n, Object handback) {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            if (!isConcurrentCycle(info.getGcName())) {
                record(info.getGcInfo().getDuration(), toJsonWriter(info));
            }
        }

        synchronized void record(long durationMs, JsonWriter event) {
            pauses++;
            totalMs += durationMs;
            maxMs = Math.max(maxMs, durationMs);
            recent.addLast(event);
            if (recent.size() > RECENT) {
                recent.removeFirst();
            }
        }

        /** {"pauses", "pause_ms_total", "max_pause_ms", "recent": [oldest .. newest]}. */
        public synchronized JsonWriter json() {
            return new JsonWriter().put("pauses", pauses).put("pause_ms_total", totalMs).put("max_pause_ms", maxMs)
                .put("recent", new ArrayList<>(recent));
        }
    }
}
