package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WAL file whose fsync fails ({@link FailingDisk}: a test double, a failing disk cannot be made on demand):
 * every append waiting for the sync fails naming the file and the cause, every later one is refused, and the
 * WAL says so once ({@link GroupCommitWal#failure}), which is what makes the region server abort.
 */
@Timeout(30)
class WalForceFailureTest {
    @TempDir
    Path dir;

    @Test
    void pendingSyncsFailAndLaterAppendsAreRefusedOnceAForceFails() throws Exception {
        Path file = dir.resolve("wal.1");
        try (FailingDisk disk = FailingDisk.install()) {
            GroupCommitWal wal = GroupCommitWal.create(file, 1, new Configuration());
            assertEquals(1, wal.append("t", "r", GroupCommitWalTest.cells("before"), Durability.SYNC_WAL).awaitDurable(),
                "a SYNC_WAL append needs no force");
            disk.failForces();
            List<WalAppend> waiting = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                waiting.add(wal.append("t", "r", GroupCommitWalTest.cells("fsync-" + i), Durability.FSYNC_WAL));
            }
            for (WalAppend a : waiting) {
                IOException e = assertThrows(IOException.class, a::awaitDurable, "an FSYNC_WAL append is not acknowledged");
                assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains(FailingDisk.FORCE_ERROR),
                    "names the file and the cause: " + e.getMessage());
            }
            IOException first = wal.failure().get(10, TimeUnit.SECONDS);
            assertTrue(first.getMessage().contains(FailingDisk.FORCE_ERROR), first.getMessage());
            IOException refused = assertThrows(IOException.class,
                () -> wal.append("t", "r", GroupCommitWalTest.cells("after"), Durability.SYNC_WAL));
            assertTrue(refused.getMessage().contains(FailingDisk.FORCE_ERROR), refused.getMessage());
            assertThrows(IOException.class, wal::close, "close reports the failure");
        }
    }
}
