package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.StorageConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gathering append: cells written straight from a (direct) request buffer give exactly encode()'s bytes. */
class WalWriterCellsTest {
    @TempDir
    Path dir;

    @Test
    void cellsInADirectBufferAreWrittenAsTheEqualKeyValueRecord() throws Exception {
        List<WalRecord> records = WalWriterTest.randomRecords(30, 5);
        Path file = dir.resolve("wal.1");
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (WalWriter w = WalWriter.create(file, false)) {
            for (WalRecord r : records) {
                ByteBuffer request = ByteBuffer.allocateDirect(64 * 1024);
                List<ByteBufferKeyValue> views = new ArrayList<>();
                int pos = 13; // as if after a request header
                for (KeyValue kv : r.cells()) {
                    request.put(pos, kv.getBuffer(), kv.getOffset(), kv.getLength());
                    views.add(new ByteBufferKeyValue(request, pos, kv.getLength()));
                    pos += kv.getLength();
                }
                w.append(r.seqId(), r.table(), r.region(), views);
                ByteBuffer e = WalWriter.encode(r);
                expected.write(e.array(), e.arrayOffset(), e.remaining());
            }
        }
        byte[] written = Files.readAllBytes(file);
        assertArrayEquals(expected.toByteArray(), Arrays.copyOfRange(written, StorageConstants.WAL_HEADER_SIZE, written.length));
        try (WalReader r = WalReader.open(file, false)) {
            for (WalRecord rec : records) {
                assertEquals(rec, r.next());
            }
            assertNull(r.next());
        }
    }
}
