package org.heaplab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.wal.Durability;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The benchmark's op and its counters, driven by hand from one thread (no JMH, no timing). */
class WalAppendBenchmarkTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "ASYNC_WAL, legacy", "ASYNC_WAL, preassigned",
        "SYNC_WAL, legacy", "SYNC_WAL, preassigned",
        "FSYNC_WAL, legacy", "FSYNC_WAL, preassigned"})
    void putsAreCountedAndTheWalFileIsRemoved(Durability durability, String mvcc) throws Exception {
        WalAppendBenchmark b = new WalAppendBenchmark();
        b.durability = durability;
        b.mvcc = mvcc;
        b.batch = 3;
        b.syncers = 2;
        b.valueSize = 50;
        b.open(dir, "test", 1);
        List<KeyValue> cells = new ArrayList<>();
        Random random = new Random(1);
        for (int i = 0; i < b.batch; i++) {
            cells.add(PeCells.cell(random, b.valueSize));
        }
        long last = 0;
        for (int i = 0; i < 10; i++) {
            long seqId = b.put(cells);
            assertTrue(seqId > last, "sequence ids grow");
            last = seqId;
        }
        WalCounters c = b.close();
        assertEquals(10, c.appends());
        assertTrue(c.syncs() >= 1, "close flushes at least once");
        if (durability == Durability.ASYNC_WAL) {
            assertTrue(c.syncs() < 10, "ASYNC_WAL puts do not sync one by one: " + c.syncs());
        } else {
            // one thread waits for each put: every put needs its own sync (the close barrier may add one)
            assertTrue(c.syncs() >= 10, c.describe());
        }
        if (durability == Durability.FSYNC_WAL) {
            assertTrue(c.forces() >= 10, c.describe());
        } else {
            assertTrue(c.forces() <= 1, "only the close barrier forces: " + c.describe());
        }
        assertTrue(c.walBytes() > 10 * 3 * 50, "the records were written: " + c.walBytes());
        assertTrue(c.toJson().contains("\"durability\": \"" + durability + "\""));
        try (var files = Files.list(dir)) {
            assertFalse(files.findAny().isPresent(), "the trial's WAL file is deleted");
        }
    }
}
