package org.heaplab.core.region;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one put allocates on the thread that runs it (the RPC handler's share, RPC excluded): the cell's
 * memstore copy, the objects HBase makes per put too (the decoded Put with its row copies and family
 * map, the WALEdit and WALKey) and a handful of small per-write objects (WAL append, MVCC entry, row
 * locks, futures): about 1.2 KB for a 238-byte cell. A guard against garbage HBase does not make
 * creeping back (streams, boxed ids, extra collections): before those were removed a single put of a
 * 200-byte value allocated about 3 KB here.
 */
@Timeout(120)
class PutPathAllocationTest {
    private static final int VALUE = 200;

    @TempDir
    Path root;

    /** A put's cell as the 2.x decoder makes it: a view over a direct request buffer, LATEST_TIMESTAMP to stamp. */
    private static Cell cell(int i) {
        KeyValue kv = KeyValue.create(String.format("row-%08d", i).getBytes(StandardCharsets.US_ASCII),
            "info0".getBytes(StandardCharsets.US_ASCII), "0".getBytes(StandardCharsets.US_ASCII), KeyValue.LATEST_TIMESTAMP,
            KeyValue.Type.PUT, new byte[VALUE]);
        ByteBuffer b = ByteBuffer.allocateDirect(kv.getLength());
        b.put(0, kv.getBuffer(), kv.getOffset(), kv.getLength());
        return new ByteBufferKeyValue(b, 0, kv.getLength());
    }

    @Test
    void aSinglePutAllocatesLittleMoreThanItsMemstoreCopy() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        Configuration conf = new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root)
            .set(StorageKeys.BLOCK_CACHE_BYTES, String.valueOf(4 << 20));
        try (OnlineRegions o = OnlineRegions.open(conf)) {
            o.createTable(new TableDescriptor("T", "info0".getBytes(StandardCharsets.US_ASCII), Compression.NONE),
                new byte[0][]);
            int n = 20_000;
            List<List<Cell>> puts = new ArrayList<>(2 * n);
            for (int i = 0; i < 2 * n; i++) {
                puts.add(new ArrayList<>(List.of(cell(i)))); // made before measuring: the request's own objects
            }
            for (int i = 0; i < n; i++) { // warm up: the JIT compiles the path (escape analysis)
                o.put("T", puts.get(i));
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = n; i < 2 * n; i++) {
                o.put("T", puts.get(i));
            }
            long perPut = (threads.getCurrentThreadAllocatedBytes() - before) / n;
            long cellBytes = puts.get(0).get(0).getSerializedLength();
            // the memstore's copy of the cell (its array and KeyValue) plus under 1 KB of small objects
            assertTrue(perPut < cellBytes + 1024, "a put allocated " + perPut + " bytes on its thread for a "
                + cellBytes + "-byte cell");
        }
    }
}
