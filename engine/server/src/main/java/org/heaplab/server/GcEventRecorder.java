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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

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
 * <p>Thread safety: notifications arrive on a JMX thread; writes are serialised on this object.
 */
public final class GcEventRecorder implements Closeable, NotificationListener {
    public static final String FILE_KEY = "heaplab.gc.events.file";

    private final Writer out;
    private final long jvmStartMs;
    private final Set<String> heapPools = new HashSet<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private boolean closed;
    private volatile java.util.function.Consumer<String> afterWrite = line -> { };

    private GcEventRecorder(Writer out) {
        this.out = out;
        this.jvmStartMs = ManagementFactory.getRuntimeMXBean().getStartTime();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
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

    static boolean isConcurrentCycle(String collector) {
        return collector.endsWith("Cycles") || collector.contains("Concurrent");
    }

    String toJson(GarbageCollectionNotificationInfo info) {
        GcInfo gc = info.getGcInfo();
        return new JsonWriter()
            .put("start_epoch_ms", jvmStartMs + gc.getStartTime())
            .put("uptime_ms", gc.getStartTime())
            .put("collector", info.getGcName())
            .put("action", info.getGcAction())
            .put("cause", info.getGcCause())
            .put("duration_ms", gc.getDuration())
            .put("heap_before_bytes", heapUsed(gc.getMemoryUsageBeforeGc()))
            .put("heap_after_bytes", heapUsed(gc.getMemoryUsageAfterGc()))
            .put("young", info.getGcAction().contains("minor"))
            .toString();
    }

    private long heapUsed(Map<String, MemoryUsage> pools) {
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : pools.entrySet()) {
            if (heapPools.contains(e.getKey())) {
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
    void afterWrite(java.util.function.Consumer<String> listener) {
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
}
