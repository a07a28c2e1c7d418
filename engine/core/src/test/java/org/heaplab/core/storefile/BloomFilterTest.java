package org.heaplab.core.storefile;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BloomFilterTest {
    @TempDir
    Path dir;

    private static String row(int i) {
        return String.format("user%09d", i);
    }

    /** One small cell per even row number: odd numbers are absent rows inside the file's row range. */
    private Path writeEvenRows(int rows, int chunkBytes) throws Exception {
        List<KeyValue> cells = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            cells.add(KeyValue.create(b(row(2 * i)), b("f"), b("q"), 1, KeyValue.Type.PUT, b("v")));
        }
        Path file = dir.resolve("b.sf");
        StoreFileWriterTest.write(file, cells, new StoreFileWriter.Options(Compression.NONE, DataBlockEncoding.NONE,
            BloomType.ROW), new StoreFileTuning(64 * 1024, 128 * 1024, 0.01, chunkBytes));
        return file;
    }

    @Test
    void noFalseNegativesAndAboutOnePercentFalsePositivesAcrossChunks() throws Exception {
        Path file = writeEvenRows(50_000, 8 * 1024); // ~6800 rows per chunk: 8 chunks
        TestBlockCache cache = new TestBlockCache(false);
        try (StoreFileReader r = StoreFileReader.open(file, cache)) {
            int chunks = r.bloomChunkLocations().size();
            assertTrue(chunks >= 7, "chunks " + chunks);
            for (int i = 0; i < 50_000; i++) {
                assertTrue(r.mightContainRow(b(row(2 * i))), "row " + i + " was added");
            }
            int falsePositives = 0;
            int absent = 49_999;
            for (int i = 0; i < absent; i++) {
                if (r.mightContainRow(b(row(2 * i + 1)))) {
                    falsePositives++;
                }
            }
            double rate = falsePositives / (double) absent;
            assertTrue(rate > 0.002 && rate < 0.02, "false-positive rate " + rate + " (target 0.01)");
            assertEquals(chunks, cache.inserts(BlockType.BLOOM), "each chunk read from disk once, then cached");
        }
    }

    @Test
    void aGetOfAnAbsentRowSkipsTheFileWithoutReadingDataBlocks() throws Exception {
        Path file = writeEvenRows(20_000, 128 * 1024);
        try (StoreFileReader r = StoreFileReader.open(file, new TestBlockCache(false))) {
            StoreFileReadCounters.Snapshot before = StoreFileReadCounters.snapshot();
            List<KeyValue> out = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                byte[] absent = b(row(2 * i + 1));
                if (r.mightContainRow(absent)) { // what a get does: skip the file when the bloom says no
                    r.getRow(absent, out);
                }
            }
            StoreFileReadCounters.Snapshot d = StoreFileReadCounters.snapshot().minus(before);
            assertTrue(out.isEmpty());
            assertEquals(1000, d.bloomChecks());
            assertTrue(d.bloomNegatives() >= 950, "negatives " + d.bloomNegatives());
            assertTrue(d.dataBlocksRead() <= d.bloomChecks() - d.bloomNegatives(),
                "a data block is read only for a false positive: " + d);
        }
    }
}
