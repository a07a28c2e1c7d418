package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.io.StorageConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalReaderTest {
    @TempDir
    Path dir;

    private final List<WalRecord> records = WalRoundTripTest.randomRecords(5, 42);

    /** Writes the records; returns the file offset where each record starts. */
    private long[] write(Path file) throws IOException {
        long[] offsets = new long[records.size()];
        try (ChannelWalSink sink = ChannelWalSink.create(file)) {
            for (int i = 0; i < records.size(); i++) {
                offsets[i] = sink.length();
                sink.append(records.get(i));
                sink.flush();
            }
        }
        return offsets;
    }

    private static List<WalRecord> readAll(Path file, boolean newest) throws IOException {
        List<WalRecord> out = new ArrayList<>();
        try (WalReader r = WalReader.open(file, newest)) {
            WalRecord rec;
            while ((rec = r.next()) != null) {
                out.add(rec);
            }
        }
        return out;
    }

    private static void flipByte(Path file, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ 0x5a);
        }
    }

    @Test
    void incompleteLastRecordIsTruncated() throws IOException {
        Path file = dir.resolve("wal.1");
        long[] offsets = write(file);
        long cut = offsets[4] + 11; // inside the last record's body
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(cut);
        }
        assertEquals(records.subList(0, 4), readAll(file, true));
        assertEquals(offsets[4], Files.size(file), "torn tail truncated at the record start");
        assertEquals(records.subList(0, 4), readAll(file, true), "a repaired file reads cleanly");
    }

    @Test
    void badChecksumInLastRecordIsTruncated() throws IOException {
        Path file = dir.resolve("wal.1");
        long[] offsets = write(file);
        flipByte(file, Files.size(file) - 1);
        assertEquals(records.subList(0, 4), readAll(file, true));
        assertEquals(offsets[4], Files.size(file));
    }

    @Test
    void corruptMiddleRecordNamesFileAndOffset() throws IOException {
        Path file = dir.resolve("wal.1");
        long[] offsets = write(file);
        flipByte(file, offsets[2] + StorageConstants.WAL_RECORD_HEADER_SIZE + 3);
        long size = Files.size(file);
        IOException e = assertThrows(IOException.class, () -> readAll(file, true));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("offset " + offsets[2]), e.getMessage());
        assertEquals(size, Files.size(file), "a corrupt middle record must not be truncated away");
    }

    @Test
    void tornTailOfAnOlderFileIsAnError() throws IOException {
        Path file = dir.resolve("wal.1");
        long[] offsets = write(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(offsets[4] + 3);
        }
        IOException e = assertThrows(IOException.class, () -> readAll(file, false));
        assertTrue(e.getMessage().contains("offset " + offsets[4]), e.getMessage());
    }

    @Test
    void emptyFileAfterHeaderHasNoRecords() throws IOException {
        Path file = dir.resolve("wal.1");
        ChannelWalSink.create(file).close();
        try (WalReader r = WalReader.open(file, true)) {
            assertNull(r.next());
        }
    }
}
