package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real region server in its own JVM (the test classpath), for the tests that kill it: its output is
 * drained into {@link #output}, and {@link #awaitServing} waits for its own "serving" log line.
 */
public final class ChildRegionServer {
    public final Process process;
    final CountDownLatch serving = new CountDownLatch(1);
    public final List<String> output = new CopyOnWriteArrayList<>();
    final Thread drain;

    /** Starts {@code RegionServer} over {@code home} (conf/ and logs/ inside) with {@code jvmFlags}. */
    public ChildRegionServer(Path home, String... jvmFlags) throws IOException {
        this(RegionServer.class, home, jvmFlags);
    }

    /** Starts {@code main} (RegionServer's main, or a test's main around it) over {@code home}. */
    public ChildRegionServer(Class<?> main, Path home, String... jvmFlags) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmFlags));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"),
            "-Dengine.home=" + home, "-Dengine.conf.dir=" + home.resolve("conf"), "-Dengine.log.dir=" + home.resolve("logs"),
            main.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        process = pb.start();
        drain = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    output.add(line);
                    if (line.contains("region server serving on")) {
                        serving.countDown();
                    }
                }
            } catch (IOException ignored) {
                // process gone
            }
        });
        drain.setDaemon(true);
        drain.start();
    }

    /**
     * Fails the test, naming {@code where} and the server's output, unless it serves within 60 s; fails at
     * once when the process ends first (a bad configuration, a failed replay).
     */
    public void awaitServing(String where) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!serving.await(100, TimeUnit.MILLISECONDS)) {
            if (!process.isAlive()) {
                drain.join(5_000); // its last lines
            }
            assertTrue(process.isAlive() && System.nanoTime() < deadline,
                () -> "server did not start (" + where + "): " + output);
        }
    }
}
