package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import org.heaplab.core.TestKv;
import org.heaplab.core.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Both MVCC implementations, against the same contract. */
class MvccTest {
    private static final long FIRST_SEQ = 1000;

    @TempDir
    Path dir;

    private static LongFunction<Mvcc> factory(String kind) {
        return kind.equals("legacy") ? LegacyMvcc::new : PreassignedMvcc::new;
    }

    private GroupCommitWal wal(Path file) throws Exception {
        return new GroupCommitWal("mvcc", ChannelWalSink.create(file), FIRST_SEQ, WalTuning.of(5, 256, 60_000));
    }

    private static String value(WalRecord r) {
        return TestKv.s(r.cells().get(0).row());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "preassigned"})
    @Timeout(30)
    void sequenceOrderEqualsFileOrderUnderConcurrency(String kind) throws Exception {
        Path file = dir.resolve("wal.1");
        GroupCommitWal wal = wal(file);
        Mvcc[] regions = {factory(kind).apply(FIRST_SEQ - 1), factory(kind).apply(FIRST_SEQ - 1)};
        Map<Long, String> begun = new ConcurrentHashMap<>();
        GroupCommitWalTest.runThreads(12, t -> {
            Mvcc mvcc = regions[t % 2];
            long last = -1;
            for (int i = 0; i < 300; i++) {
                String row = t + "-" + i;
                WriteEntry e = mvcc.begin(wal, "t", "r" + (t % 2), GroupCommitWalTest.cells(row),
                    i % 3 == 0 ? Durability.ASYNC_WAL : Durability.SYNC_WAL);
                try {
                    assertTrue(e.seqId() > last, "a handler's own writes get increasing ids");
                    last = e.seqId();
                    assertEquals(e.seqId(), e.append().seqId());
                    begun.put(e.seqId(), row);
                    if (e.append().durability() == Durability.SYNC_WAL) {
                        e.append().awaitDurable();
                    }
                } finally {
                    mvcc.completeAndWait(e);
                }
                assertTrue(mvcc.readPoint() >= e.seqId(), "visible after completeAndWait");
            }
        });
        wal.close();
        List<WalRecord> recs = CountingSink.replay(file);
        assertEquals(begun.size(), recs.size());
        long last = -1;
        for (WalRecord r : recs) {
            assertTrue(r.seqId() > last, "file order must be sequence order");
            last = r.seqId();
            assertEquals(begun.get(r.seqId()), value(r), "record under seq " + r.seqId() + " is another write's");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "preassigned"})
    @Timeout(30)
    void readPointNeverPassesAnIncompleteWrite(String kind) throws Exception {
        GroupCommitWal wal = wal(dir.resolve("wal.1"));
        Mvcc mvcc = factory(kind).apply(FIRST_SEQ - 1);
        ConcurrentSkipListSet<Long> incomplete = new ConcurrentSkipListSet<>();
        AtomicReference<String> violation = new AtomicReference<>();
        Runnable check = () -> {
            long rp = mvcc.readPoint();
            Long min = incomplete.ceiling(Long.MIN_VALUE); // null when empty, no race with removal
            if (min != null && rp >= min) {
                violation.compareAndSet(null, "read point " + rp + " passed incomplete write " + min);
            }
        };
        GroupCommitWalTest.runThreads(8, t -> {
            for (int i = 0; i < 200; i++) {
                WriteEntry a = mvcc.begin(wal, "t", "r", GroupCommitWalTest.cells(t + "a" + i), Durability.ASYNC_WAL);
                incomplete.add(a.seqId());
                WriteEntry b = mvcc.begin(wal, "t", "r", GroupCommitWalTest.cells(t + "b" + i), Durability.ASYNC_WAL);
                incomplete.add(b.seqId());
                check.run();
                incomplete.remove(b.seqId()); // complete the later write first
                mvcc.complete(b);
                check.run();
                assertTrue(mvcc.readPoint() < a.seqId(), "read point passed the incomplete earlier write");
                incomplete.remove(a.seqId());
                mvcc.completeAndWait(a);
                check.run();
            }
        });
        assertEquals(null, violation.get());
        WriteEntry last = mvcc.begin(wal, "t", "r", GroupCommitWalTest.cells("last"), Durability.SKIP_WAL);
        mvcc.completeAndWait(last);
        assertEquals(last.seqId(), mvcc.readPoint());
        wal.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "preassigned"})
    @Timeout(30)
    void completeAndWaitWaitsForEveryEarlierWrite(String kind) throws Exception {
        GroupCommitWal wal = wal(dir.resolve("wal.1"));
        Mvcc mvcc = factory(kind).apply(FIRST_SEQ - 1);
        WriteEntry e1 = mvcc.begin(wal, "t", "r", GroupCommitWalTest.cells("1"), Durability.SYNC_WAL);
        WriteEntry e2 = mvcc.begin(wal, "t", "r", GroupCommitWalTest.cells("2"), Durability.SYNC_WAL);
        assertTrue(e2.seqId() > e1.seqId());
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
            try {
                mvcc.completeAndWait(e2);
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        });
        assertThrows(TimeoutException.class, () -> waiter.get(200, TimeUnit.MILLISECONDS));
        assertTrue(mvcc.readPoint() < e1.seqId());
        mvcc.complete(e1);
        waiter.get(10, TimeUnit.SECONDS);
        assertEquals(e2.seqId(), mvcc.readPoint());
        wal.close();
    }

    @Test
    @Timeout(30)
    void legacyHandlerGetsItsIdFromTheConsumerPreassignedOwnsItAtOnce() throws Exception {
        Path file = dir.resolve("wal.1");
        CountingSink sink = new CountingSink(file);
        GroupCommitWal wal = new GroupCommitWal("ids", sink, FIRST_SEQ, WalTuning.of(1, 16, 60_000));
        WalAppend pre = wal.append("t", "r", GroupCommitWalTest.cells("p"), Durability.ASYNC_WAL);
        assertTrue(pre.isAssigned(), "pre-assigned before the consumer saw it");
        AtomicReference<String> assigner = new AtomicReference<>();
        WalAppend legacy = wal.appendUnassigned("t", "r", GroupCommitWalTest.cells("l"), Durability.ASYNC_WAL,
            id -> assigner.set(Thread.currentThread().getName()));
        assertEquals(pre.seqId() + 1, legacy.awaitSeqId());
        assertEquals("ids-consumer", assigner.get());
        wal.close();
        assertFalse(sink.file.length() == 0);
    }

    /** The HBASE-16698 difference: with the consumer thread stalled, only the legacy begin blocks. */
    @Test
    @Timeout(30)
    void legacyBeginWaitsForTheConsumerPreassignedDoesNot() throws Exception {
        CountingSink sink = new CountingSink(dir.resolve("wal.1"));
        sink.appendGate = new CountDownLatch(1);
        GroupCommitWal wal = new GroupCommitWal("stall", sink, FIRST_SEQ, WalTuning.of(1, 16, 60_000));
        wal.append("t", "r", GroupCommitWalTest.cells("stall"), Durability.ASYNC_WAL);
        assertTrue(sink.firstAppendStarted.await(10, TimeUnit.SECONDS), "consumer never reached the sink");
        PreassignedMvcc pre = new PreassignedMvcc(FIRST_SEQ - 1);
        WriteEntry p = pre.begin(wal, "t", "r", GroupCommitWalTest.cells("pre"), Durability.ASYNC_WAL);
        assertEquals(FIRST_SEQ + 1, p.seqId(), "pre-assigned id owned while the consumer is stalled");
        LegacyMvcc legacy = new LegacyMvcc(FIRST_SEQ - 1);
        CompletableFuture<WriteEntry> l = CompletableFuture.supplyAsync(() -> {
            try {
                return legacy.begin(wal, "t", "r", GroupCommitWalTest.cells("legacy"), Durability.ASYNC_WAL);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        assertThrows(TimeoutException.class, () -> l.get(200, TimeUnit.MILLISECONDS),
            "legacy begin must wait for the consumer to assign its id");
        sink.appendGate.countDown();
        WriteEntry le = l.get(10, TimeUnit.SECONDS);
        assertEquals(FIRST_SEQ + 2, le.seqId());
        pre.completeAndWait(p);
        legacy.completeAndWait(le);
        wal.close();
        assertEquals(3, CountingSink.replay(dir.resolve("wal.1")).size());
    }

    @Test
    void configurationSelectsTheImplementation() {
        assertTrue(Mvcc.create(new Configuration(), 0) instanceof PreassignedMvcc);
        assertTrue(Mvcc.create(new Configuration().set(Mvcc.PREASSIGN, "false"), 0) instanceof LegacyMvcc);
    }
}
