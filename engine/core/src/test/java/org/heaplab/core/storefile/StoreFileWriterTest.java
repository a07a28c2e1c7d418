package org.heaplab.core.storefile;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StoreFileWriterTest {
    @TempDir
    Path dir;

    /** Sorted cells: {@code rows} rows x 3 columns x 2 versions, compressible values of 100 bytes. */
    static List<KeyValue> cells(int rows) {
        Random rnd = new Random(rows);
        List<KeyValue> cells = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            for (int q = 0; q < 3; q++) {
                for (long ts = 2; ts >= 1; ts--) {
                    byte[] v = ("value-" + r + "-" + q + "-" + ts + "-" + rnd.nextInt(10)).repeat(5).getBytes();
                    cells.add(KeyValue.create(b(String.format("row%06d", r)), b("f"), b("q" + q), ts,
                        KeyValue.Type.PUT, java.util.Arrays.copyOf(v, 100)));
                }
            }
        }
        return cells;
    }

    static Trailer write(Path file, List<KeyValue> cells, Compression c, long maxSeq) throws Exception {
        try (StoreFileWriter w = new StoreFileWriter(file, c)) {
            for (KeyValue kv : cells) {
                w.append(kv);
            }
            return w.finish(maxSeq);
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void roundTripsEveryCellAndTheTrailer(Compression compression) throws Exception {
        List<KeyValue> cells = cells(2000); // ~1 MB: many 64 KB blocks
        Path file = dir.resolve("1.sf");
        Trailer written = write(file, cells, compression, 77);
        try (StoreFileReader r = StoreFileReader.open(file, BlockCache.NONE)) {
            assertEquals(written, r.trailer());
            assertEquals(cells.size(), r.trailer().cellCount());
            assertEquals(77, r.trailer().maxSequenceId());
            assertEquals(compression, r.trailer().compression());
            assertTrue(r.index().blockCount() > 10, "blocks: " + r.index().blockCount());
            assertEquals(cells, r.readAll());
        }
        if (compression == Compression.SNAPPY) {
            Path plain = dir.resolve("plain.sf");
            write(plain, cells, Compression.NONE, 77);
            assertTrue(Files.size(file) < Files.size(plain) / 2, "snappy compresses repetitive values");
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void getRowFindsRowsInAnyBlockIncludingBoundaries(Compression compression) throws Exception {
        List<KeyValue> cells = cells(2000);
        Path file = dir.resolve("1.sf");
        write(file, cells, compression, 1);
        try (StoreFileReader r = StoreFileReader.open(file, BlockCache.NONE)) {
            for (int row : new int[] {0, 1, 500, 1234, 1999}) {
                String name = String.format("row%06d", row);
                List<KeyValue> expected = cells.stream()
                    .filter(kv -> new String(kv.row()).equals(name)).toList();
                List<KeyValue> got = new ArrayList<>();
                r.getRow(b(name), got);
                assertEquals(expected, got, name);
            }
            // every block's first row, so rows that start a block (or span two) are covered
            for (int blk = 0; blk < r.index().blockCount(); blk++) {
                List<KeyValue> got = new ArrayList<>();
                byte[] raw = r.readBlock(blk);
                KeyValue first = new KeyValue(raw, 0, KeyValue.serializedLength(raw, 0));
                r.getRow(first.row(), got);
                assertEquals(6, got.size(), "row " + first);
            }
            List<KeyValue> none = new ArrayList<>();
            r.getRow(b("row999999"), none);
            r.getRow(b("a"), none);
            r.getRow(b("row000000x"), none);
            assertTrue(none.isEmpty());
        }
    }

    @Test
    void rejectsCellsOutOfOrder() throws Exception {
        try (StoreFileWriter w = new StoreFileWriter(dir.resolve("x.sf"), Compression.NONE)) {
            List<KeyValue> cells = cells(2);
            w.append(cells.get(1));
            assertThrows(IllegalArgumentException.class, () -> w.append(cells.get(0)));
        }
    }

    @Test
    void emptyFileIsValid() throws Exception {
        Path file = dir.resolve("e.sf");
        write(file, List.of(), Compression.SNAPPY, 5);
        try (StoreFileReader r = StoreFileReader.open(file, BlockCache.NONE)) {
            assertEquals(0, r.trailer().cellCount());
            assertEquals(5, r.trailer().maxSequenceId());
            List<KeyValue> out = new ArrayList<>();
            r.getRow(b("any"), out);
            assertTrue(out.isEmpty());
        }
    }
}
