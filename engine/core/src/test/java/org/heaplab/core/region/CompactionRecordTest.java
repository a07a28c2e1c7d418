package org.heaplab.core.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record of a compaction's removal finishes what a crash cut short (the crash itself, at a named point of
 * a real server, is CompactionCrashTest in the server module).
 */
class CompactionRecordTest {
    @Test
    void aRemovalCutShortIsFinishedAndTheRecordRemoved(@TempDir Path family) throws IOException {
        for (String f : List.of("3.sf", "2.sf", "9.sf")) {
            Files.writeString(family.resolve(f), f);
        }
        CompactionRecord.write(family, family.resolve("9.sf"),
            List.of(family.resolve("3.sf"), family.resolve("2.sf"), family.resolve("1.sf"))); // 1.sf: removed before
        CompactionRecord.finishInterrupted(family);
        assertEquals(List.of("9.sf"), names(family));
    }

    @Test
    void withoutItsOutputTheInputsStay(@TempDir Path family) throws IOException {
        Files.writeString(family.resolve("1.sf"), "1");
        CompactionRecord.write(family, family.resolve("2.sf"), List.of(family.resolve("1.sf")));
        CompactionRecord.finishInterrupted(family);
        assertEquals(List.of("1.sf"), names(family));
    }

    @Test
    void nothingToFinishWithoutARecord(@TempDir Path family) throws IOException {
        Files.writeString(family.resolve("1.sf"), "1");
        CompactionRecord.finishInterrupted(family);
        assertEquals(List.of("1.sf"), names(family));
        assertFalse(Files.exists(family.resolve(CompactionRecord.FILE)));
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
