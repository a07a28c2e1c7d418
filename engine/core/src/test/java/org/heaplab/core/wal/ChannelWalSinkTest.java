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

    private final List<WalRecord> records = WalRoundTripTest.randomRecords(20, 7);

    /** The sink's bytes are exactly the format's, laid out the plain way by {@link WalFileBytes}. */
    @Test
    void writesExactlyTheFormatsBytes() throws IOException {
        Path viaSink = dir.resolve("wal.2");
        try (ChannelWalSink sink = ChannelWalSink.create(viaSink)) {
            for (int i = 0; i < records.size(); i++) {
                sink.append(records.get(i));
                if (i % 3 == 0) {
                    sink.flush();
                }
            }
        }
        assertArrayEquals(WalFileBytes.file(records), Files.readAllBytes(viaSink));
        assertEquals(records, CountingSink.replay(viaSink));
    }

    /**
     * Records straddling the encode chunks, one far bigger than a chunk, and more buffered before one
     * flush than the direct chunks hold (heap chunks take the rest): still the format's bytes exactly.
     */
    @Test
    void recordsAcrossChunksAndBeyondTheDirectChunksAreTheFormatsBytes() throws IOException {
        List<WalRecord> big = new java.util.ArrayList<>(WalRoundTripTest.randomRecords(4000, 11));
        byte[] value = new byte[WalChunks.CHUNK_SIZE * 3 + 17];
        new java.util.Random(5).nextBytes(value);
        big.add(2000, new WalRecord(99_999, "T", "region-big", List.of(org.heaplab.core.cell.KeyValue.create(
            "r".getBytes(), "f".getBytes(), "q".getBytes(), 1, org.heaplab.core.cell.KeyValue.Type.PUT, value))));
        byte[] expected = WalFileBytes.file(big);
        Path viaSink = dir.resolve("wal.2");
        try (ChannelWalSink sink = ChannelWalSink.create(viaSink)) {
            for (int i = 0; i < big.size(); i++) {
                sink.append(big.get(i));
                if (i == 3900 || i == 3950) { // most of the file, then a little: chunks reused across flushes
                    sink.flush();
                }
            }
            assertTrue(expected.length * 9L / 10 > WalChunks.CHUNK_SIZE * (long) WalChunks.MAX_DIRECT_CHUNKS,
                "the first flush has more buffered than the direct chunks hold: " + expected.length);
        }
        assertArrayEquals(expected, Files.readAllBytes(viaSink));
        assertEquals(big, CountingSink.replay(viaSink));
    }

    /** A record's CRC split by a chunk boundary (the CRC is written after its body): still exact. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void aCrcAcrossAChunkBoundary(int crcBytesInFirstChunk) throws IOException {
        org.heaplab.core.cell.KeyValue empty = cell(0);
        int recordOverhead = 8 + 8 + 2 + 1 + 2 + 1 + 4; // length, crc, seqId, "T", "r", cell count
        // the first record fills the chunk up to where the second one's CRC leaves crcBytesInFirstChunk
        int first = WalChunks.CHUNK_SIZE - 4 - crcBytesInFirstChunk;
        List<WalRecord> two = List.of(
            new WalRecord(1, "T", "r", List.of(cell(first - recordOverhead - empty.getSerializedLength()))),
            new WalRecord(2, "T", "r", List.of(cell(100))));
        assertEquals(first, WalFileBytes.record(two.get(0)).remaining());
        Path viaSink = dir.resolve("wal.2");
        try (ChannelWalSink sink = ChannelWalSink.create(viaSink)) {
            sink.append(two.get(0));
            sink.append(two.get(1));
        }
        assertArrayEquals(WalFileBytes.file(two), Files.readAllBytes(viaSink));
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
