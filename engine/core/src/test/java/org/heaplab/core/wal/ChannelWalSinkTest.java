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
     * Records that grow the heap encode buffer many times over, one far bigger than all before it, and
     * flushes that start a fresh buffer: still the format's bytes exactly.
     */
    @Test
    void recordsThatGrowTheBufferAndFlushesBetweenThemAreTheFormatsBytes() throws IOException {
        List<WalRecord> big = new java.util.ArrayList<>(WalRoundTripTest.randomRecords(4000, 11));
        byte[] value = new byte[3 * 64 * 1024 + 17];
        new java.util.Random(5).nextBytes(value);
        big.add(2000, new WalRecord(99_999, "T", "region-big", List.of(org.heaplab.core.cell.KeyValue.create(
            "r".getBytes(), "f".getBytes(), "q".getBytes(), 1, org.heaplab.core.cell.KeyValue.Type.PUT, value))));
        byte[] expected = WalFileBytes.file(big);
        Path viaSink = dir.resolve("wal.2");
        try (ChannelWalSink sink = ChannelWalSink.create(viaSink)) {
            for (int i = 0; i < big.size(); i++) {
                sink.append(big.get(i));
                if (i == 0 || i == 3900 || i == 3950) { // one record, most of the file, then a little
                    sink.flush();
                }
            }
        }
        assertArrayEquals(expected, Files.readAllBytes(viaSink));
        assertEquals(big, CountingSink.replay(viaSink));
    }

    /** HBase's ByteArrayOutputStream's growth: 32 bytes, doubled (or to what is needed); a take starts over. */
    @Test
    void theEncodeBufferDoublesAndStartsOverAfterATake() {
        WalByteArrayOutput out = new WalByteArrayOutput();
        int at = out.reserveInt();
        byte[] forty = new byte[40];
        java.util.Arrays.fill(forty, (byte) 3);
        out.put(forty, 40); // 44 bytes: grown from 32 to 64
        out.put(java.nio.ByteBuffer.wrap(new byte[200])); // 244: grown to 244 (doubling gives 128, too small)
        out.setInt(at, 0x01020304);
        assertEquals(244, out.size());
        java.nio.ByteBuffer taken = out.take();
        assertEquals(244, taken.remaining());
        assertEquals(244, taken.array().length, "grown to exactly what was needed");
        assertEquals(0x01020304, taken.getInt(0));
        assertEquals(3, taken.get(4 + 39));
        assertEquals(0, out.size());
        out.putInt(7);
        assertEquals(WalByteArrayOutput.INITIAL_CAPACITY, out.take().array().length, "a fresh array after a take");
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
