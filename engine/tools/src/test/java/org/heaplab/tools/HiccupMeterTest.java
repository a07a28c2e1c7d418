package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hiccup meter records a stall it is dealt: one sleep of the loop lasts a known, much longer time (a
 * real sleep, the test hook), and the interval log and the summary must hold an overrun at least that long.
 * Only lower bounds are asserted (a sleep never ends early), so a busy machine cannot fail the test.
 */
class HiccupMeterTest {
    private static final long STALL_MS = 300;

    @TempDir
    Path dir;

    @Test
    void recordsAnInjectedStall() throws Exception {
        Path prefix = dir.resolve("hiccup-host");
        HiccupMeter.Options o = new HiccupMeter.Options(prefix.toString(), 0, 1, 50);
        AtomicInteger calls = new AtomicInteger();
        HiccupMeter[] meter = new HiccupMeter[1];
        meter[0] = new HiccupMeter(o, millis -> {
            int n = calls.incrementAndGet();
            Thread.sleep(n == 20 ? millis + STALL_MS : millis);  // the 20th sleep is the stall
            if (n == 60) {
                meter[0].stop();
            }
        });
        meter[0].measure();

        List<Histogram> intervals = IntervalLogReader.read(Path.of(prefix + ".hlog"));
        assertTrue(intervals.size() >= 2, "the stall alone spans more than one 50 ms interval: " + intervals.size());
        long samples = intervals.stream().mapToLong(Histogram::getTotalCount).sum();
        assertEquals(60, samples, "one overrun per sleep");
        long maxUs = intervals.stream().mapToLong(Histogram::getMaxValue).max().orElse(0);
        assertTrue(maxUs >= STALL_MS * 1000, "the stall is in the log: max " + maxUs + " us");
        String header = Files.readString(Path.of(prefix + ".hlog"), StandardCharsets.UTF_8);
        assertTrue(header.contains("50 ms intervals"), header.lines().limit(3).toList().toString());

        String json = Files.readString(Path.of(prefix + ".json"), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"tool\": \"hiccup\"") || json.contains("\"tool\":\"hiccup\""), json);
        assertTrue(json.matches("(?s).*\"samples\": ?60[,}].*"), json);
        long jsonMax = Long.parseLong(json.replaceAll("(?s).*\"max\": ?(\\d+).*", "$1"));
        assertTrue(jsonMax >= STALL_MS * 1000, "the summary's max holds the stall: " + json);
    }

    @Test
    void endsAfterItsDuration() throws Exception {
        Path prefix = dir.resolve("short");
        new HiccupMeter(new HiccupMeter.Options(prefix.toString(), 1, 1, 100), Thread::sleep).measure();
        assertTrue(Files.isRegularFile(Path.of(prefix + ".json")));
        assertTrue(IntervalLogReader.read(Path.of(prefix + ".hlog")).stream().mapToLong(Histogram::getTotalCount).sum() > 0);
    }

    @Test
    void usageErrorsAreOneLine() {
        for (String[] args : List.of(new String[] {}, new String[] {"--report=x", "--interval=5"},
                new String[] {"--report=x", "--bogus=1"}, new String[] {"--report=x", "extra"})) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = HiccupMeter.run(args, new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(2, code, String.join(" ", args));
            String first = err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
            assertTrue(first.startsWith("ERROR: "), first);
        }
    }
}
