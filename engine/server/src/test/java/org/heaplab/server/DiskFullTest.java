package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskFullTest {
    @Test
    void aFullDiskAnywhereInTheCausesIsNamedByTheOutermostMessage() {
        IOException write = new IOException("No space left on device");
        IOException wal = new IOException("WAL write to /data/WALs/wal.1 failed: " + write.getMessage(), write);
        IOException put = new IOException("WAL wal.1 failed before txid 7 was written", wal);
        assertEquals("WAL wal.1 failed before txid 7 was written", DiskFull.cause(put));
        assertEquals(wal.getMessage(), DiskFull.cause(wal));
    }

    @Test
    void otherFailuresAreNoFullDisk() {
        assertNull(DiskFull.cause(new IOException("Connection reset", new IOException("Broken pipe"))));
        assertNull(DiskFull.cause(new IllegalArgumentException()));
    }

    @Test
    void theSpaceLineNamesTheFileSystemAndItsFreeBytes(@TempDir Path dir) {
        String line = DiskFull.space(dir);
        assertTrue(line.matches(".* \\(.+\\) has \\d+ bytes free of \\d+ \\(hbase\\.rootdir " + java.util.regex.Pattern.quote(dir.toString()) + "\\)"), line);
        assertTrue(DiskFull.space(dir.resolve("not-there")).contains("unknown"), "a missing directory says so");
    }
}
