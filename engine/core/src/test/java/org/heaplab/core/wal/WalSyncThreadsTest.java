package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.heaplab.core.cell.Cell;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Which thread writes and which forces: the consumer writes every batch, syncers only force. */
class WalSyncThreadsTest {
    @TempDir
    Path dir;

    /** A real file sink that records the names of the threads that flushed and forced it. */
    static final class ThreadRecordingSink implements WalSink {
        final ChannelWalSink file;
        final Set<String> flushedBy = ConcurrentHashMap.newKeySet();
        final Set<String> forcedBy = ConcurrentHashMap.newKeySet();

        ThreadRecordingSink(Path path) throws IOException {
            this.file = ChannelWalSink.create(path);
        }

        @Override
        public void append(long seqId, String table, String region, List<? extends Cell> cells) throws IOException {
            file.append(seqId, table, region, cells);
        }

        @Override
        public void flush() throws IOException {
            flushedBy.add(Thread.currentThread().getName());
            file.flush();
        }

        @Override
        public void force() throws IOException {
            forcedBy.add(Thread.currentThread().getName());
            file.force();
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }

    @Test
    @Timeout(30)
    void syncAppendsAreWrittenByTheConsumerWithoutASyncer() throws Exception {
        ThreadRecordingSink sink = new ThreadRecordingSink(dir.resolve("wal.1"));
        GroupCommitWal wal = new GroupCommitWal("w", sink, 1, WalTuning.of(3, 64, 60_000));
        for (int i = 0; i < 50; i++) {
            wal.append("t", "r", GroupCommitWalTest.cells("row" + i), Durability.SYNC_WAL).awaitDurable();
        }
        assertEquals(Set.of("w-consumer"), sink.flushedBy);
        assertTrue(sink.forcedBy.isEmpty(), "nothing asked for a force: " + sink.forcedBy);
        wal.close();
    }

    @Test
    @Timeout(30)
    void forcesGoToTheSyncers() throws Exception {
        ThreadRecordingSink sink = new ThreadRecordingSink(dir.resolve("wal.1"));
        GroupCommitWal wal = new GroupCommitWal("w", sink, 1, WalTuning.of(3, 64, 60_000));
        for (int i = 0; i < 10; i++) {
            wal.append("t", "r", GroupCommitWalTest.cells("row" + i), Durability.FSYNC_WAL).awaitDurable();
        }
        assertFalse(sink.forcedBy.isEmpty());
        for (String thread : sink.forcedBy) {
            assertTrue(thread.startsWith("w-syncer-"), "forced on " + thread);
        }
        assertEquals(10, wal.forcedTxid() + 1);
        wal.close();
    }
}
