package org.heaplab.server.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.heaplab.client.Connection;
import org.heaplab.client.Result;
import org.heaplab.client.ResultScanner;
import org.heaplab.client.Scan;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.util.CrashPoints;
import org.heaplab.server.ChildRegionServer;
import org.heaplab.server.StorageAssumption;
import org.heaplab.server.crash.KillPlan.Kill;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real region server (a child JVM) inside a flush, a compaction and a WAL roll, at the named
 * {@link CrashPoints} (the child halts there: -Dheaplab.test.crash.at) and at a random moment, under
 * SYNC_WAL and FSYNC_WAL puts and deletes ({@link LoadWriters}), on both profiles and both write paths
 * ({@link ServerVariant}). After every restart (WAL replay) a full scan is compared with the
 * {@link RowLedger}: no acknowledged write lost, none corrupt, no phantom row, nothing gone that comes back.
 *
 * <p>The default run kills once per point ({@link KillPlan#defaultRun}); HEAPLAB_SOAK=1 makes
 * {@link KillPlan#SOAK_KILLS} random kills. The seed is printed (and in every failure); rerun one with
 * -Dheaplab.crash.seed=N.
 */
class CrashPointTest {
    /** The child server's JVM: small heap, serial GC, quick start. */
    private static final String[] SERVER_JVM = {"-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1"};
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
    /** How long a kill waits for the child to reach its point before it kills it anyway (a loaded machine). */
    private static final long POINT_WAIT_MS = 60_000;

    private ChildRegionServer child;

    @AfterEach
    void killTheChild() throws InterruptedException {
        if (child != null) {
            child.process.destroyForcibly();
            child.process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(value = 13, unit = TimeUnit.HOURS) // the default run's own limit is below: 10 minutes
    void noAcknowledgedWriteIsLostCorruptOrInventedByAKillAtAnyCrashPoint(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        boolean soak = "1".equals(System.getenv("HEAPLAB_SOAK"));
        long seed = Long.getLong("heaplab.crash.seed", System.nanoTime());
        List<Kill> plan = soak ? KillPlan.soak(new Random(seed)) : KillPlan.defaultRun(new Random(seed));
        System.out.println("CrashPointTest: " + plan.size() + " kills, seed " + seed + (soak ? " (HEAPLAB_SOAK=1)" : ""));
        long start = System.nanoTime();
        CrashTally tally = new CrashTally();
        assertTimeoutPreemptively(soak ? Duration.ofHours(12) : Duration.ofMinutes(10),
            () -> run(root, plan, soak ? KillPlan.SOAK_KILLS_PER_EPOCH : plan.size(), seed, tally, start));
        String summary = tally.summary(seed, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        System.out.println("CrashPointTest: " + summary);
        if (!soak) { // a soak reports the points a busy machine missed; the default run needs every one
            assertEquals(Map.of(), tally.missed(), "every crash point was reached: " + summary);
        }
    }

    /** Runs the kills on one data directory per {@code perEpoch} kills; each restart checks the ledger. */
    private void run(Path root, List<Kill> plan, int perEpoch, long seed, CrashTally tally, long startNanos)
        throws Exception {
        for (int from = 0; from < plan.size(); from += perEpoch) {
            int epoch = from / perEpoch;
            Path home = root.resolve("epoch-" + epoch);
            RowLedger ledger = new RowLedger();
            int port = freePort();
            List<Kill> kills = plan.subList(from, Math.min(plan.size(), from + perEpoch));
            String after = null; // the kill the next start recovers from
            for (int k = 0; k < kills.size(); k++) {
                Kill kill = kills.get(k);
                String where = "seed " + seed + ", kill " + (from + k + 1) + "/" + plan.size() + " (" + kill + ")";
                start(home, port, kill.variant(), kill.flag(), where);
                if (after == null) {
                    createTable(port);
                } else {
                    check(port, ledger, tally, "after " + after + ", restarted on " + kill.variant());
                }
                LoadWriters load = new LoadWriters(ledger, "e" + epoch + "k" + k, child.process::isAlive);
                load.start(HOST, port);
                boolean reached = awaitKill(kill, load, where);
                load.stopAndJoin();
                tally.killed(kill.point(), reached, load.acks());
                after = where;
            }
            ServerVariant last = kills.get(kills.size() - 1).variant();
            start(home, port, last, null, "the last restart, after " + after);
            check(port, ledger, tally, "after " + after + ", restarted on " + last);
            killTheChild();
            child = null;
            if (perEpoch < plan.size()) {
                System.out.println("CrashPointTest: epoch " + epoch + " done, " + ledger.size() + " rows; "
                    + tally.summary(seed, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos)));
                AtomicFiles.deleteRecursively(home);
            }
        }
    }

    private void start(Path home, int port, ServerVariant variant, String crashFlag, String where) throws Exception {
        variant.writeSite(home, HOST, port);
        List<String> jvm = new ArrayList<>(List.of(SERVER_JVM));
        if (crashFlag != null) {
            jvm.add(crashFlag);
        }
        child = new ChildRegionServer(home, jvm.toArray(String[]::new));
        child.awaitServing(where);
    }

    /**
     * Waits for the child to halt at its point (exit status {@link CrashPoints#HALT_STATUS}), or SIGKILLs it
     * after its acknowledged writes ({@link KillPlan#ANYWHERE}) or when the point is not reached in time.
     *
     * @return true when the kill came where it was planned
     */
    private boolean awaitKill(Kill kill, LoadWriters load, String where) throws Exception {
        if (kill.point().equals(KillPlan.ANYWHERE)) {
            load.awaitAcks(kill.afterAcks(), POINT_WAIT_MS);
            assertTrue(child.process.isAlive(), () -> "the server died on its own, " + where + ": " + tail());
            child.process.destroyForcibly();
            assertTrue(child.process.waitFor(30, TimeUnit.SECONDS), where);
            return true;
        }
        if (child.process.waitFor(POINT_WAIT_MS, TimeUnit.MILLISECONDS)) {
            assertEquals(CrashPoints.HALT_STATUS, child.process.exitValue(),
                () -> "the server exited other than at its crash point, " + where + ": " + tail());
            return true;
        }
        child.process.destroyForcibly();
        assertTrue(child.process.waitFor(30, TimeUnit.SECONDS), where);
        return false;
    }

    private static void createTable(int port) throws IOException {
        try (Connection c = Connection.open(HOST, port)) {
            c.getAdmin().createTable(new TableDescriptor(LoadWriters.TABLE, LoadWriters.F, Compression.NONE),
                LoadWriters.SPLITS);
        }
    }

    /** A full scan of the table compared with the ledger; fails with examples unless it is clean. */
    private void check(int port, RowLedger ledger, CrashTally tally, String where) throws IOException {
        Map<String, String> present = new HashMap<>();
        try (Connection c = Connection.open(HOST, port);
             ResultScanner s = c.getTable(LoadWriters.TABLE).getScanner(new Scan().setCaching(1000))) {
            for (Result r : s) {
                byte[] v = r.getValue(LoadWriters.F, LoadWriters.Q);
                present.put(new String(r.getRow(), StandardCharsets.US_ASCII),
                    v == null ? "" : new String(v, StandardCharsets.US_ASCII));
            }
        }
        RowLedger.Check check = ledger.check(present);
        tally.checked(check);
        assertTrue(check.clean(), () -> where + ": " + check + "; server output: " + tail());
    }

    private String tail() {
        List<String> out = child.output;
        return String.join("\n", out.subList(Math.max(0, out.size() - 15), out.size()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
