package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.heaplab.core.io.StorageConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChannelWalSinkTest {
    @TempDir
    Path dir;

    private final List<WalRecord> records = WalWriterTest.randomRecords(20, 7);

    @Test
    void writesExactlyTheBytesWalWriterWrites() throws IOException {
        Path viaWriter = dir.resolve("wal.1");
        try (WalWriter w = WalWriter.create(viaWriter, false)) {
            for (WalRecord r : records) {
                w.append(r);
            }
        }
        Path viaSink = dir.resolve("wal.2");
        try (ChannelWalSink sink = ChannelWalSink.create(viaSink)) {
            for (int i = 0; i < records.size(); i++) {
                sink.append(records.get(i));
                if (i % 3 == 0) {
                    sink.flush();
                }
            }
        }
        assertArrayEquals(Files.readAllBytes(viaWriter), Files.readAllBytes(viaSink));
        assertEquals(records, CountingSink.replay(viaSink));
    }

    @Test
    void appendOnlyBuffersUntilFlush() throws IOException {
        Path file = dir.resolve("wal.1");
        try (ChannelWalSink sink = ChannelWalSink.create(file)) {
            sink.append(records.get(0));
            assertEquals(StorageConstants.WAL_HEADER_SIZE, Files.size(file));
            sink.flush();
            sink.force();
            assertEquals(Files.size(file), sink.length());
            assertEquals(List.of(records.get(0)), CountingSink.replay(file));
        }
    }

    @Test
    void refusesAnExistingFile() throws IOException {
        Path file = dir.resolve("wal.1");
        Files.write(file, new byte[] {1});
        assertThrows(IOException.class, () -> ChannelWalSink.create(file));
    }
}
