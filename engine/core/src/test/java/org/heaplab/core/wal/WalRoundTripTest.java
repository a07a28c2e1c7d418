package org.heaplab.core.wal;

import static org.heaplab.core.TestKv.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.StorageConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What {@link ChannelWalSink} writes, {@link WalReader} reads back: the records, their lengths, the header. */
class WalRoundTripTest {
    @TempDir
    Path dir;

    static List<WalRecord> randomRecords(int n, long seed) {
        Random rnd = new Random(seed);
        List<WalRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<KeyValue> cells = new ArrayList<>();
            int count = 1 + rnd.nextInt(5);
            for (int c = 0; c < count; c++) {
                byte[] value = new byte[rnd.nextInt(300)];
                rnd.nextBytes(value);
                cells.add(KeyValue.create(("row" + rnd.nextInt(1000)).getBytes(), "f".getBytes(),
                    ("q" + c).getBytes(), rnd.nextLong() & Long.MAX_VALUE, KeyValue.Type.PUT, value));
            }
            records.add(new WalRecord(100 + i, "T" + (i % 3), "region-" + (i % 2), cells));
        }
        return records;
    }

    /** Each record flushed on its own (and forced, with {@code force}): the file grows by the record's bytes. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void recordsRoundTrip(boolean force) throws Exception {
        Path file = dir.resolve("wal.1");
        List<WalRecord> records = randomRecords(50, force ? 1 : 2);
        long expectedLength = StorageConstants.WAL_HEADER_SIZE;
        try (ChannelWalSink sink = ChannelWalSink.create(file)) {
            assertEquals(expectedLength, sink.length());
            for (WalRecord r : records) {
                expectedLength += WalFileBytes.record(r).remaining();
                sink.append(r);
                sink.flush();
                if (force) {
                    sink.force();
                }
                assertEquals(expectedLength, sink.length());
                assertEquals(expectedLength, Files.size(file));
            }
        }
        assertEquals(expectedLength, Files.size(file));
        try (WalReader r = WalReader.open(file, false)) {
            for (WalRecord expected : records) {
                assertEquals(expected, r.next());
            }
            assertNull(r.next());
        }
    }

    @Test
    void fileStartsWithTheMagicAndARecordHeaderCarriesBodyLength() throws Exception {
        Path file = dir.resolve("wal.1");
        try (ChannelWalSink sink = ChannelWalSink.create(file)) {
            sink.append(new WalRecord(7, "t", "r", List.of(put("a", "q", 1, "v"))));
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        assertEquals(StorageConstants.WAL_MAGIC, b.getLong(0));
        assertEquals(b.remaining() - StorageConstants.WAL_HEADER_SIZE - StorageConstants.WAL_RECORD_HEADER_SIZE,
            b.getInt(StorageConstants.WAL_HEADER_SIZE));
    }
}
