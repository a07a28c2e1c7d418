package org.heaplab.core.wal;

import static org.heaplab.core.TestKv.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalTest {
    @TempDir
    Path dir;

    @Test
    void sequenceIdsIncreaseFromTheFirstId() throws Exception {
        try (Wal wal = new Wal(dir, 1 << 20, false, 17)) {
            assertEquals(17, wal.append("t", "a", List.of(put("r", "q", 1, "v"))));
            assertEquals(18, wal.append("t", "b", List.of(put("r", "q", 1, "v"))));
        }
    }

    @Test
    void rolledFilesAreDeletedOnceEveryRegionFlushedPastThem() throws Exception {
        Wal wal = new Wal(dir, 200, false, 1); // tiny roll size: every append rolls
        wal.append("t", "a", List.of(put("r1", "q", 1, "x".repeat(300))));
        wal.append("t", "b", List.of(put("r2", "q", 1, "x".repeat(300))));
        wal.append("t", "a", List.of(put("r3", "q", 1, "x".repeat(300))));
        assertEquals(3, wal.rolledFileCount());
        assertEquals(4, Wal.listFiles(dir).size());

        wal.startFlush("a");
        wal.completeFlush("a");
        // b's edit (seq 2) is in the second file: the first file (seq 1, only a) may go, the others stay
        assertEquals(2, wal.rolledFileCount());

        wal.startFlush("b");
        wal.abortFlush("b"); // a failed flush keeps the edits
        assertEquals(2, wal.rolledFileCount());
        wal.startFlush("b");
        wal.completeFlush("b");
        assertEquals(0, wal.rolledFileCount());
        assertEquals(1, Wal.listFiles(dir).size(), "only the current file remains");
        assertTrue(!wal.hasUnflushedEdits());
        wal.close(true);
        assertEquals(0, Wal.listFiles(dir).size());
    }

    @Test
    void closeWithoutDeleteKeepsFilesForReplay() throws Exception {
        Wal wal = new Wal(dir, 1 << 20, false, 1);
        wal.append("t", "a", List.of(put("r1", "q", 1, "v")));
        assertTrue(wal.hasUnflushedEdits());
        wal.close();
        List<Path> files = Wal.listFiles(dir);
        assertEquals(1, files.size());
        try (WalReader r = WalReader.open(files.get(0), true)) {
            assertEquals(1, r.next().seqId());
        }
        try (Wal next = new Wal(dir, 1 << 20, false, 2)) {
            assertEquals(2, Wal.listFiles(dir).size(), "a new WAL starts a new file after the old one");
        }
    }
}
