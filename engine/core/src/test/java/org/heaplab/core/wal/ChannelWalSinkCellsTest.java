package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cells appended straight from a (direct) request buffer give exactly the bytes of the equal KeyValue records. */
class ChannelWalSinkCellsTest {
    @TempDir
    Path dir;

    @Test
    void cellsInADirectBufferAreWrittenAsTheEqualKeyValueRecord() throws Exception {
        List<WalRecord> records = WalRoundTripTest.randomRecords(30, 5);
        Path file = dir.resolve("wal.1");
        try (ChannelWalSink sink = ChannelWalSink.create(file)) {
            for (int i = 0; i < records.size(); i++) {
                WalRecord r = records.get(i);
                ByteBuffer request = ByteBuffer.allocateDirect(64 * 1024);
                List<ByteBufferKeyValue> views = new ArrayList<>();
                int pos = 13; // as if after a request header
                for (KeyValue kv : r.cells()) {
                    request.put(pos, kv.getBuffer(), kv.getOffset(), kv.getLength());
                    views.add(new ByteBufferKeyValue(request, pos, kv.getLength()));
                    pos += kv.getLength();
                }
                sink.append(r.seqId(), r.table(), r.region(), views);
                request.clear().put(new byte[request.capacity()]); // the sink copied the cells: the buffer may be reused
                if (i % 4 == 0) {
                    sink.flush();
                }
            }
        }
        assertArrayEquals(WalFileBytes.file(records), Files.readAllBytes(file));
        try (WalReader r = WalReader.open(file, false)) {
            for (WalRecord rec : records) {
                assertEquals(rec, r.next());
            }
            assertNull(r.next());
        }
    }
}
