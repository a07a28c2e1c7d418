package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.heaplab.core.util.JsonWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GcEventRecorderTest {
    /** The exact shape of a contracts.md section 4 line, field by field, in order. */
    private static final Pattern LINE = Pattern.compile("\\{\"start_epoch_ms\": (\\d+), \"uptime_ms\": (\\d+), "
        + "\"collector\": \"([^\"]+)\", \"action\": \"([^\"]+)\", \"cause\": \"([^\"]+)\", \"duration_ms\": (\\d+), "
        + "\"heap_before_bytes\": (\\d+), \"heap_after_bytes\": (\\d+), \"young\": (true|false)}");

    @Test
    void writesOneValidJsonLinePerPauseAfterSystemGc(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("logs/gc-events.jsonl");
        CountDownLatch written = new CountDownLatch(1);
        try (GcEventRecorder r = GcEventRecorder.start(file)) {
            r.afterWrite(line -> written.countDown());
            System.gc();
            assertTrue(written.await(30, TimeUnit.SECONDS), "no GC notification within 30 s");
        }
        List<String> lines = Files.readAllLines(file);
        assertFalse(lines.isEmpty());
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        boolean sawSystemGc = false;
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            assertTrue(m.matches(), "not a GC event line: " + line);
            assertEquals(jvmStart + Long.parseLong(m.group(2)), Long.parseLong(m.group(1)));
            assertEquals(m.group(4).contains("minor"), Boolean.parseBoolean(m.group(9)));
            sawSystemGc |= m.group(5).equals("System.gc()");
        }
        assertTrue(sawSystemGc, "the System.gc() pause is recorded: " + lines);
    }

    @Test
    void appendsAndStopsWritingAfterClose(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gc.jsonl");
        Files.writeString(file, "previous\n");
        CountDownLatch written = new CountDownLatch(1);
        GcEventRecorder r = GcEventRecorder.start(file);
        r.afterWrite(line -> written.countDown());
        System.gc();
        assertTrue(written.await(30, TimeUnit.SECONDS));
        r.close();
        List<String> before = Files.readAllLines(file);
        assertEquals("previous", before.get(0));
        System.gc();
        // a GC after close must not be written: the listener is gone and writes are refused
        r.handleNotification(new javax.management.Notification("other", this, 1), null);
        assertEquals(before, Files.readAllLines(file));
    }

    @Test
    void concurrentCycleCollectorsAreNotPauses() {
        assertTrue(GcEventRecorder.isConcurrentCycle("ZGC Cycles"));
        assertTrue(GcEventRecorder.isConcurrentCycle("Shenandoah Cycles"));
        assertTrue(GcEventRecorder.isConcurrentCycle("G1 Concurrent GC"));
        assertFalse(GcEventRecorder.isConcurrentCycle("G1 Young Generation"));
        assertFalse(GcEventRecorder.isConcurrentCycle("ZGC Pauses"));
        assertFalse(GcEventRecorder.isConcurrentCycle("PS MarkSweep"));
    }

    @Test
    void pauseLogCountsPausesAndKeepsTheRecentOnes() throws Exception {
        GcEventRecorder.PauseLog log = GcEventRecorder.pauseLog();
        long before = pauses(log.json().toString());
        System.gc();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String json = log.json().toString();
        while (pauses(json) == before && System.nanoTime() < deadline) { // notifications arrive asynchronously
            Thread.sleep(20);
            json = log.json().toString();
        }
        assertTrue(pauses(json) > before, json);
        assertTrue(json.contains("\"cause\": \"System.gc()\""), json);
        Matcher total = Pattern.compile("\"pause_ms_total\": (\\d+), \"max_pause_ms\": (\\d+)").matcher(json);
        assertTrue(total.find(), json);
        assertTrue(Long.parseLong(total.group(1)) >= Long.parseLong(total.group(2)), json);
        assertTrue(GcEventRecorder.pauseLog() == log, "one log per process");
    }

    @Test
    void pauseLogKeepsOnlyTheLastTenPauses() {
        GcEventRecorder.PauseLog log = new GcEventRecorder.PauseLog();
        for (int i = 1; i <= 12; i++) {
            log.record(i, new JsonWriter().put("duration_ms", i));
        }
        assertEquals("{\"pauses\": 12, \"pause_ms_total\": 78, \"max_pause_ms\": 12, \"recent\": [{\"duration_ms\": 3}, "
            + "{\"duration_ms\": 4}, {\"duration_ms\": 5}, {\"duration_ms\": 6}, {\"duration_ms\": 7}, {\"duration_ms\": 8}, "
            + "{\"duration_ms\": 9}, {\"duration_ms\": 10}, {\"duration_ms\": 11}, {\"duration_ms\": 12}]}", log.json().toString());
    }

    private static long pauses(String json) {
        Matcher m = Pattern.compile("\"pauses\": (\\d+)").matcher(json);
        assertTrue(m.find(), json);
        return Long.parseLong(m.group(1));
    }
}
