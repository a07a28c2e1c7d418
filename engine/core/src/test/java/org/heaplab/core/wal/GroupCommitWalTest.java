package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.heaplab.core.TestKv;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class GroupCommitWalTest {
    @TempDir
    Path dir;

    static List<KeyValue> cells(String row) {
        return List.of(TestKv.put(row, "q", 1, "v-" + row));
    }

    private GroupCommitWal open(WalSink sink, long asyncFlushMs) {
        return new GroupCommitWal("test", sink, 100, WalTuning.of(5, 1024, asyncFlushMs));
    }

    /** Runs {@code body(thread index)} on {@code n} threads started together; rethrows the first failure. */
    static void runThreads(int n, ThrowingIntConsumer body) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    body.accept(id);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            th.start();
            threads.add(th);
        }
        start.countDown();
        for (Thread th : threads) {
            th.join(30_000);
            assertFalse(th.isAlive(), "worker thread hung");
        }
        if (failure.get() != null) {
            throw new AssertionError("worker failed: " + failure.get(), failure.get());
        }
    }

    interface ThrowingIntConsumer {
        void accept(int i) throws Exception;
    }

    /** A copy of the live file, so reading it cannot race the writer. */
    private List<WalRecord> replayCopy(Path file) throws IOException {
        Path copy = dir.resolve("copy-" + System.nanoTime());
        Files.copy(file, copy);
        return CountingSink.replay(copy);
    }

    @Test
    @Timeout(30)
    void concurrentAppendsReplayWithEveryAcknowledgedSyncAppendInOrder() throws Exception {
        Path file = dir.resolve("wal.1");
        CountingSink sink = new CountingSink(file);
        GroupCommitWal wal = open(sink, 10);
        int threads = 16;
        int each = 300;
        ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
        runThreads(threads, t -> {
            for (int i = 0; i < each; i++) {
                Durability d = i % 10 == 0 ? Durability.FSYNC_WAL : Durability.SYNC_WAL;
                WalAppend a = wal.append("t", "r" + (t % 3), cells(t + "-" + i), d);
                acked.add(a.awaitDurable());
            }
        });
        List<WalRecord> beforeClose = replayCopy(file);
        Set<Long> inFile = new HashSet<>();
        long last = -1;
        for (WalRecord r : beforeClose) {
            assertTrue(r.seqId() > last, "seq ids must strictly increase: " + last + " then " + r.seqId());
            last = r.seqId();
            inFile.add(r.seqId());
        }
        for (long s : acked) {
            assertTrue(inFile.contains(s), "acknowledged SYNC append " + s + " missing from the file");
        }
        assertEquals(threads * each, beforeClose.size());
        assertTrue(wal.syncCount() <= threads * each, "syncs " + wal.syncCount());
        wal.close();
        assertEquals(threads * each, CountingSink.replay(file).size());
    }

    @Test
    @Timeout(30)
    void oneSyncCompletesEveryAppendQueuedBehindIt() throws Exception {
        Path file = dir.resolve("wal.1");
        CountingSink sink = new CountingSink(file);
        sink.gate = new CountDownLatch(1);
        GroupCommitWal wal = open(sink, 60_000);
        WalAppend first = wal.append("t", "r", cells("first"), Durability.SYNC_WAL);
        assertTrue(sink.firstFlushStarted.await(10, TimeUnit.SECONDS));
        int threads = 20;
        ConcurrentLinkedQueue<WalAppend> behind = new ConcurrentLinkedQueue<>();
        // the consumer itself is held in the flush, so these wait in the ring once append returns
        runThreads(threads, t -> behind.add(wal.append("t", "r", cells("b" + t), Durability.SYNC_WAL)));
        assertEquals(threads, behind.size());
        for (WalAppend a : behind) {
            assertFalse(a.durable().isDone(), "completed before any sync covered it");
        }
        sink.gate.countDown();
        first.awaitDurable();
        for (WalAppend a : behind) {
            a.awaitDurable();
        }
        int appends = threads + 1;
        // the held sync, then (usually) exactly one sync covering all 20 behind it
        assertTrue(wal.syncCount() <= 3, "expected the queued appends to share a sync, got " + wal.syncCount());
        assertTrue(wal.syncCount() < appends);
        assertEquals(wal.syncCount(), sink.flushes.get());
        wal.close();
        assertEquals(appends, CountingSink.replay(file).size());
    }

    @Test
    @Timeout(30)
    void asyncReturnsBeforeSyncAndIsDurableAfterTheNextSync() throws Exception {
        Path file = dir.resolve("wal.1");
        CountingSink sink = new CountingSink(file);
        sink.appendsSeen = new CountDownLatch(1);
        GroupCommitWal wal = open(sink, 60_000);
        WalAppend a = wal.append("t", "r", cells("async"), Durability.ASYNC_WAL);
        assertTrue(sink.appendsSeen.await(10, TimeUnit.SECONDS));
        assertFalse(a.durable().isDone(), "ASYNC_WAL must not wait for a sync");
        assertEquals(0, wal.syncCount());
        assertEquals(0, replayCopy(file).size(), "nothing written before a sync");
        wal.sync(false).awaitDurable();
        assertEquals(a.seqId(), a.awaitDurable());
        List<WalRecord> recs = replayCopy(file);
        assertEquals(1, recs.size());
        assertEquals(a.seqId(), recs.get(0).seqId());
        wal.close();
    }

    @Test
    @Timeout(30)
    void asyncAppendIsSyncedByThePeriodicFlush() throws Exception {
        Path file = dir.resolve("wal.1");
        GroupCommitWal wal = open(new CountingSink(file), 20);
        WalAppend a = wal.append("t", "r", cells("async"), Durability.ASYNC_WAL);
        assertEquals(a.seqId(), a.durable().get(10, TimeUnit.SECONDS));
        assertEquals(1, replayCopy(file).size());
        wal.close();
    }

    @Test
    @Timeout(30)
    void aSteadyStreamOfAsyncAppendsStillGetsSynced() throws Exception {
        Path file = dir.resolve("wal.1");
        GroupCommitWal wal = open(new CountingSink(file), 20);
        WalAppend first = wal.append("t", "r", cells("first"), Durability.ASYNC_WAL);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int n = 0;
        while (!first.durable().isDone() && System.nanoTime() < deadline) {
            wal.append("t", "r", cells("a" + n++), Durability.ASYNC_WAL); // the consumer is never idle long
        }
        assertTrue(first.durable().isDone(), "ASYNC_WAL append never synced under a steady ASYNC stream");
        first.awaitDurable();
        wal.close();
    }

    @Test
    void createRejectsABadSyncerCountNamingTheKey() {
        org.heaplab.core.conf.Configuration conf = new org.heaplab.core.conf.Configuration()
            .set(WalTuning.SYNCER_COUNT, "0");
        org.heaplab.core.conf.ConfigurationException e = assertThrows(org.heaplab.core.conf.ConfigurationException.class,
            () -> GroupCommitWal.create(dir.resolve("wal.1"), 1, conf));
        assertTrue(e.getMessage().contains(WalTuning.SYNCER_COUNT), e.getMessage());
        assertFalse(java.nio.file.Files.exists(dir.resolve("wal.1")), "a bad value is refused before the file exists");
    }

    @Test
    @Timeout(30)
    void fsyncForcesAndSyncDoesNot() throws Exception {
        Path file = dir.resolve("wal.1");
        CountingSink sink = new CountingSink(file);
        GroupCommitWal wal = open(sink, 60_000);
        wal.append("t", "r", cells("s"), Durability.SYNC_WAL).awaitDurable();
        assertEquals(0, sink.forces.get(), "SYNC_WAL must not force");
        WalAppend f = wal.append("t", "r", cells("f"), Durability.FSYNC_WAL);
        f.awaitDurable();
        assertTrue(sink.forces.get() >= 1, "FSYNC_WAL must call FileChannel.force");
        assertTrue(wal.forcedTxid() >= f.txid());
        wal.close();
    }

    @Test
    @Timeout(30)
    void skipWalTakesASequenceIdButWritesNothing() throws Exception {
        Path file = dir.resolve("wal.1");
        GroupCommitWal wal = open(new CountingSink(file), 60_000);
        WalAppend skip = wal.append("t", "r", cells("skip"), Durability.SKIP_WAL);
        WalAppend sync = wal.append("t", "r", cells("sync"), Durability.USE_DEFAULT);
        assertEquals(Durability.SYNC_WAL, sync.durability());
        skip.awaitDurable();
        sync.awaitDurable();
        assertTrue(sync.seqId() > skip.seqId());
        wal.close();
        List<WalRecord> recs = CountingSink.replay(file);
        assertEquals(1, recs.size());
        assertEquals(sync.seqId(), recs.get(0).seqId());
    }

    @Test
    @Timeout(30)
    void closeDrainsAndCompletesPendingAppends() throws Exception {
        Path file = dir.resolve("wal.1");
        CountingSink sink = new CountingSink(file);
        sink.gate = new CountDownLatch(1);
        GroupCommitWal wal = open(sink, 60_000);
        List<WalAppend> pending = new ArrayList<>();
        pending.add(wal.append("t", "r", cells("held"), Durability.SYNC_WAL));
        assertTrue(sink.firstFlushStarted.await(10, TimeUnit.SECONDS));
        for (int i = 0; i < 50; i++) {
            Durability d = Durability.values()[2 + i % 3]; // ASYNC, SYNC, FSYNC
            pending.add(wal.append("t", "r", cells("p" + i), d));
        }
        Thread closer = new Thread(() -> {
            try {
                wal.close();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        closer.start();
        sink.gate.countDown();
        closer.join(20_000);
        assertFalse(closer.isAlive(), "close hung");
        for (WalAppend a : pending) {
            assertTrue(a.durable().isDone(), "close left a future pending");
            a.awaitDurable(); // completed normally
        }
        IOException e = assertThrows(IOException.class,
            () -> wal.append("t", "r", cells("late"), Durability.SYNC_WAL));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertEquals(pending.size(), CountingSink.replay(file).size());
        wal.close(); // idempotent
    }

    @Test
    @Timeout(30)
    void appendsRacingCloseAreEitherDurableOrRejected() throws Exception {
        Path file = dir.resolve("wal.1");
        GroupCommitWal wal = open(new CountingSink(file), 60_000);
        ConcurrentLinkedQueue<WalAppend> accepted = new ConcurrentLinkedQueue<>();
        CountDownLatch someAccepted = new CountDownLatch(200);
        Thread closer = new Thread(() -> {
            try {
                someAccepted.await();
                wal.close();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        closer.start();
        runThreads(8, t -> {
            while (true) {
                WalAppend a;
                try {
                    a = wal.append("t", "r", cells(t + "-" + accepted.size()), Durability.SYNC_WAL);
                } catch (IOException e) {
                    assertTrue(e.getMessage().contains("closed"), e.getMessage());
                    someAccepted.countDown(); // in case close came early
                    return;
                }
                accepted.add(a);
                someAccepted.countDown();
            }
        });
        closer.join(20_000);
        assertFalse(closer.isAlive());
        Set<Long> inFile = new HashSet<>();
        for (WalRecord r : CountingSink.replay(file)) {
            inFile.add(r.seqId());
        }
        for (WalAppend a : accepted) {
            assertTrue(a.durable().isDone());
            assertTrue(inFile.contains(a.awaitDurable()));
        }
        assertEquals(accepted.size(), inFile.size());
    }

    @Test
    @Timeout(30)
    void aFailedSyncFailsPendingAndLaterAppendsWithAClearError() throws Exception {
        Path file = dir.resolve("wal.1");
        CountingSink sink = new CountingSink(file);
        sink.failFlush = true;
        GroupCommitWal wal = open(sink, 60_000);
        WalAppend a = wal.append("t", "r", cells("x"), Durability.SYNC_WAL);
        ExecutionException e = assertThrows(ExecutionException.class, () -> a.durable().get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("injected flush failure"), e.getCause().getMessage());
        IOException late = assertThrows(IOException.class,
            () -> wal.append("t", "r", cells("y"), Durability.SYNC_WAL));
        assertTrue(late.getMessage().contains("failed"), late.getMessage());
        assertThrows(IOException.class, wal::close);
    }
    private static List<KeyValue> bigCells(String row) {
        return List.of(TestKv.put(row, "q", 1, "x".repeat(1000)));
    }

    @Test
    void asyncAppendsAreFlushedOnceABatchOfBytesIsBuffered() throws Exception {
        CountingSink sink = new CountingSink(dir.resolve("wal.1"));
        // no periodic flush during the test; hbase.wal.batch.size 4 KB
        GroupCommitWal wal = new GroupCommitWal("test", sink, 100, new WalTuning(2, 64, 600_000, 4096, 1 << 20));
        try {
            WalAppend first = wal.append("t", "r", bigCells("a0"), Durability.ASYNC_WAL);
            for (int i = 1; i < 10; i++) {
                wal.append("t", "r", bigCells("a" + i), Durability.ASYNC_WAL);
            }
            first.durable().get(10, TimeUnit.SECONDS); // ~10 KB buffered > 4 KB: written without any SYNC append
            assertTrue(wal.syncCount() >= 1);
        } finally {
            wal.close();
        }
    }

    /** A file that falls behind stops the consumer, so the ring fills and producers block (bounded memory). */
    @Test
    void producersBlockWhenTooManyBytesAreUnflushed() throws Exception {
        CountingSink sink = new CountingSink(dir.resolve("wal.1"));
        sink.gate = new CountDownLatch(1); // the first flush hangs until the gate opens
        int ringSize = 8;
        long maxBuffered = 8 * 1024;
        GroupCommitWal wal = new GroupCommitWal("test", sink, 100, new WalTuning(1, ringSize, 600_000, 2048, maxBuffered));
        AtomicInteger accepted = new AtomicInteger();
        Thread producer = new Thread(() -> {
            try {
                for (int i = 0; i < 200; i++) {
                    wal.append("t", "r", bigCells("p" + i), Durability.ASYNC_WAL);
                    accepted.incrementAndGet();
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        try {
            producer.start();
            assertTrue(sink.firstFlushStarted.await(10, TimeUnit.SECONDS));
            awaitTrue(() -> !producer.isAlive() || producer.getState() == Thread.State.TIMED_WAITING
                || producer.getState() == Thread.State.WAITING, "the producer blocks (or, without the bound, finishes)");
            // without the bound the producer would have finished all 200 while the flush hangs
            int bound = (int) (2 * maxBuffered / 1000) + ringSize + 2;
            assertTrue(accepted.get() <= bound, "accepted " + accepted.get() + " appends (bound " + bound
                + ") while the file could not be written");
        } finally {
            sink.gate.countDown();
            producer.join(30_000);
            wal.close();
        }
        assertEquals(200, accepted.get(), "all accepted once the file caught up");
    }
    /** cellsRead() (when a pooled request buffer may go back) waits for the consumer's encoding, not for a sync. */
    @Test
    void cellsReadCompletesWhenTheConsumerEncodedTheCells() throws Exception {
        CountingSink sink = new CountingSink(dir.resolve("wal.1"));
        sink.appendGate = new CountDownLatch(1); // the consumer's first append waits here
        GroupCommitWal wal = open(sink, 600_000);
        try {
            WalAppend a = wal.append("t", "r", cells("held"), Durability.ASYNC_WAL);
            assertTrue(sink.firstAppendStarted.await(10, TimeUnit.SECONDS));
            assertFalse(a.cellsRead().isDone(), "the consumer has not encoded the cells yet");
            sink.appendGate.countDown();
            a.cellsRead().get(10, TimeUnit.SECONDS);
            assertFalse(a.durable().isDone(), "encoded, not yet synced (ASYNC_WAL, no periodic flush)");
        } finally {
            sink.appendGate.countDown(); // also when an assertion failed, or close would wait for the gate
            wal.close();
        }
    }
    /** With a ring far bigger than the bound, the consumer still stops encoding once the bound is reached. */
    @Test
    void theSinkBufferStaysBoundedWhateverTheRingSize() throws Exception {
        CountingSink sink = new CountingSink(dir.resolve("wal.1"));
        sink.gate = new CountDownLatch(1);
        long maxBuffered = 8 * 1024;
        GroupCommitWal wal = new GroupCommitWal("bounded", sink, 100, new WalTuning(1, 1024, 600_000, 2048, maxBuffered));
        try {
            for (int i = 0; i < 200; i++) { // the ring takes them all; the consumer must not encode them all
                wal.append("t", "r", bigCells("b" + i), Durability.ASYNC_WAL);
            }
            Thread consumer = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("bounded-consumer")).findFirst().orElseThrow();
            // until it waits: for the gated flush (or, without the bound, idle after all 200)
            awaitTrue(() -> consumer.getState() != Thread.State.RUNNABLE, "the consumer waits");
            int bound = (int) (maxBuffered / 1000) + 2;
            assertTrue(sink.appends.get() <= bound, "encoded " + sink.appends.get() + " records (bound " + bound
                + ") while the file could not be written");
        } finally {
            sink.gate.countDown();
            wal.close();
        }
        assertEquals(200, CountingSink.replay(dir.resolve("wal.1")).size());
    }

    /** Polls {@code condition} (a thread's state has no callback to wait on) and fails after 20 s. */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 20 s: " + what);
            Thread.sleep(1);
        }
    }
}
