package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a child JVM that is appending (kill -9, via destroyForcibly) at a random moment and checks
 * that every append it reported as acknowledged is in the replayed file, in increasing order.
 */
class GroupCommitWalCrashTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void everyAcknowledgedAppendSurvivesAKill() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int crash = 0; crash < 3; crash++) {
            int killAfterAcks = 1 + random.nextInt(3000);
            runAndKill(dir.resolve("crash-" + crash), killAfterAcks, "seed " + seed + ", crash " + crash);
        }
    }

    private void runAndKill(Path crashDir, int killAfterAcks, String what) throws Exception {
        Files.createDirectories(crashDir);
        Path file = crashDir.resolve("wal.1");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
            CrashChild.class.getName(), file.toString(), "8")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
        ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
        CountDownLatch enough = new CountDownLatch(killAfterAcks);
        CountDownLatch firstAck = new CountDownLatch(1);
        AtomicReference<String> error = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("ACK ")) {
                        acked.add(Long.parseLong(line.substring(4)));
                        enough.countDown();
                        firstAck.countDown();
                    } else if (line.startsWith("ERROR")) {
                        error.compareAndSet(null, line);
                    }
                }
            } catch (IOException e) {
                // the pipe breaks when the child dies
            } finally {
                firstAck.countDown();
                while (enough.getCount() > 0) {
                    enough.countDown(); // child ended early: stop waiting
                }
            }
        });
        reader.start();
        try {
            // kill after the target number of acks, or after 5 s with however many came (a slow machine)
            enough.await(5, TimeUnit.SECONDS);
            firstAck.await(10, TimeUnit.SECONDS); // only waits when not one ack came in 5 s
            assertTrue(child.isAlive(), what + ": child exited early (" + error.get() + ")");
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(10, TimeUnit.SECONDS), what + ": child did not die");
            reader.join(10_000);
        }
        assertNull(error.get(), what);
        assertFalse(acked.isEmpty(), what);
        List<WalRecord> recs = CountingSink.replay(file);
        Set<Long> inFile = new HashSet<>();
        long last = -1;
        for (WalRecord r : recs) {
            assertTrue(r.seqId() > last, what + ": seq ids must increase");
            last = r.seqId();
            inFile.add(r.seqId());
        }
        for (long s : acked) {
            assertTrue(inFile.contains(s), what + ": acknowledged append " + s + " lost (file has "
                + recs.size() + " records, " + acked.size() + " acked)");
        }
    }
}
