package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's WAL ({@link Wal}, many files) fails as a whole on the first I/O failure of a file or of a roll
 * ({@link FailingDisk}: a test double): {@link Wal#failure} names the file and the cause, later writes are
 * refused, and the write whose append triggered a failed roll is not stranded.
 */
@Timeout(30)
class WalFailureTest {
    @TempDir
    Path dir;

    @Test
    void aFailedForceFailsTheWalAndNamesTheFile() throws Exception {
        try (FailingDisk disk = FailingDisk.install()) {
            Wal wal = new Wal(dir, 1 << 20, false, 1);
            Mvcc mvcc = new PreassignedMvcc(0);
            disk.failForces();
            WriteEntry e = wal.begin(mvcc, "t", "r", GroupCommitWalTest.cells("a"), Durability.FSYNC_WAL);
            assertThrows(IOException.class, () -> e.append().awaitDurable());
            mvcc.complete(e);
            WalFailure f = wal.failure().get(10, TimeUnit.SECONDS);
            assertEquals(Wal.listFiles(dir).get(0), f.file());
            assertTrue(f.describe().contains(FailingDisk.FORCE_ERROR), f.describe());
            IOException refused = assertThrows(IOException.class,
                () -> wal.begin(mvcc, "t", "r", GroupCommitWalTest.cells("b"), Durability.SYNC_WAL));
            assertTrue(refused.getMessage().contains(f.file().toString()), refused.getMessage());
            assertEquals(e.seqId(), mvcc.readPoint(), "nothing was begun by the refused write");
            assertThrows(IOException.class, wal::close, "close reports the failure (the file stays for replay)");
        }
    }

    /**
     * A roll that cannot create the next file fails the WAL, but the append that crossed the roll size was
     * begun (its MVCC entry queued): it must come back to its caller, or its entry never completes and the
     * region's read point stops for good (begin used to throw here).
     */
    @Test
    void aFailedRollFailsTheWalWithoutStrandingTheWriteThatTriggeredIt() throws Exception {
        try (FailingDisk disk = FailingDisk.install(); Wal wal = new Wal(dir, 10, false, 1)) { // every append rolls
            Mvcc mvcc = new PreassignedMvcc(0);
            disk.failNewFiles();
            WriteEntry e = wal.begin(mvcc, "t", "r", GroupCommitWalTest.cells("a"), Durability.SYNC_WAL);
            assertEquals(e.seqId(), e.append().awaitDurable(), "written by the old file's close");
            mvcc.complete(e);
            assertEquals(e.seqId(), mvcc.readPoint(), "the read point moves past it");
            WalFailure f = wal.failure().get(10, TimeUnit.SECONDS);
            assertTrue(f.describe().contains(FailingDisk.CREATE_ERROR), f.describe());
            assertThrows(IOException.class,
                () -> wal.begin(mvcc, "t", "r", GroupCommitWalTest.cells("b"), Durability.SYNC_WAL));
        }
    }
}
