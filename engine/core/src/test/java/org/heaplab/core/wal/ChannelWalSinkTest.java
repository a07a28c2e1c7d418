package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.heaplab.core.io.StorageConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
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

    /**
     * Records straddling the encode chunks, one far bigger than a chunk, and more buffered before one
     * flush than the direct chunks hold (heap chunks take the rest): still WalWriter's bytes exactly.
     */
    @Test
    void recordsAcrossChunksAndBeyondTheDirectChunksAreWalWritersBytes() throws IOException {
        List<WalRecord> big = new java.util.ArrayList<>(WalWriterTest.randomRecords(4000, 11));
        byte[] value = new byte[ChannelWalSink.CHUNK_SIZE * 3 + 17];
        new java.util.Random(5).nextBytes(value);
        big.add(2000, new WalRecord(99_999, "T", "region-big", List.of(org.heaplab.core.cell.KeyValue.create(
            "r".getBytes(), "f".getBytes(), "q".getBytes(), 1, org.heaplab.core.cell.KeyValue.Type.PUT, value))));
        Path viaWriter = dir.resolve("wal.1");
        try (WalWriter w = WalWriter.create(viaWriter, false)) {
            for (WalRecord r : big) {
                w.append(r);
            }
        }
        Path viaSink = dir.resolve("wal.2");
        try (ChannelWalSink sink = ChannelWalSink.create(viaSink)) {
            for (int i = 0; i < big.size(); i++) {
                sink.append(big.get(i));
                if (i == 3900 || i == 3950) { // most of the file, then a little: chunks reused across flushes
                    sink.flush();
                }
            }
            assertTrue(Files.size(viaWriter) * 9 / 10 > ChannelWalSink.CHUNK_SIZE * (long) ChannelWalSink.MAX_DIRECT_CHUNKS,
                "the first flush has more buffered than the direct chunks hold: " + Files.size(viaWriter));
        }
        assertArrayEquals(Files.readAllBytes(viaWriter), Files.readAllBytes(viaSink));
        assertEquals(big, CountingSink.replay(viaSink));
    }

    /** A record's CRC split by a chunk boundary (the CRC is written after its body): still exact. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void aCrcAcrossAChunkBoundary(int crcBytesInFirstChunk) throws IOException {
        org.heaplab.core.cell.KeyValue empty = cell(0);
        int recordOverhead = 8 + 8 + 2 + 1 + 2 + 1 + 4; // length, crc, seqId, "T", "r", cell count
        // the first record fills the chunk up to where the second one's CRC leaves crcBytesInFirstChunk
        int first = ChannelWalSink.CHUNK_SIZE - 4 - crcBytesInFirstChunk;
        List<WalRecord> two = List.of(
            new WalRecord(1, "T", "r", List.of(cell(first - recordOverhead - empty.getSerializedLength()))),
            new WalRecord(2, "T", "r", List.of(cell(100))));
        Path viaWriter = dir.resolve("wal.1");
        try (WalWriter w = WalWriter.create(viaWriter, false)) {
            assertEquals(StorageConstants.WAL_HEADER_SIZE + first, w.append(two.get(0)));
            w.append(two.get(1));
        }
        Path viaSink = dir.resolve("wal.2");
        try (ChannelWalSink sink = ChannelWalSink.create(viaSink)) {
            sink.append(two.get(0));
            sink.append(two.get(1));
        }
        assertArrayEquals(Files.readAllBytes(viaWriter), Files.readAllBytes(viaSink));
    }

    private static org.heaplab.core.cell.KeyValue cell(int valueLength) {
        byte[] value = new byte[valueLength];
        java.util.Arrays.fill(value, (byte) 7);
        return org.heaplab.core.cell.KeyValue.create("r".getBytes(), "f".getBytes(), "q".getBytes(), 1,
            org.heaplab.core.cell.KeyValue.Type.PUT, value);
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
