package org.heaplab.core.storefile;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

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
                    cells.add(KeyValue.create(b(rowName(r)), b("f"), b("q" + q), ts,
                        KeyValue.Type.PUT, java.util.Arrays.copyOf(v, 100)));
                }
            }
        }
        return cells;
    }

    static String rowName(int r) {
        return String.format("row%06d", r);
    }

    static Trailer write(Path file, List<KeyValue> cells, StoreFileWriter.Options options, StoreFileTuning tuning)
        throws IOException {
        try (StoreFileWriter w = new StoreFileWriter(file, options, tuning)) {
            for (KeyValue kv : cells) {
                w.append(kv);
            }
            return w.finish(77);
        }
    }

    static Trailer write(Path file, List<KeyValue> cells, StoreFileWriter.Options options) throws IOException {
        return write(file, cells, options, StoreFileTuning.DEFAULT);
    }

    static StoreFileWriter.Options options(DataBlockEncoding e, Compression c) {
        return new StoreFileWriter.Options(c, e, BloomType.ROW);
    }

    static Stream<Arguments> encodingsAndCodecs() {
        List<Arguments> all = new ArrayList<>();
        for (DataBlockEncoding e : DataBlockEncoding.values()) {
            for (Compression c : Compression.values()) {
                all.add(Arguments.of(e, c));
            }
        }
        return all.stream();
    }

    static List<KeyValue> rowOf(List<KeyValue> cells, String row) {
        return cells.stream().filter(kv -> new String(kv.row()).equals(row)).toList();
    }

    static List<KeyValue> copies(List<Cell> cells) {
        List<KeyValue> out = new ArrayList<>();
        for (Cell c : cells) {
            byte[] bytes = new byte[c.getSerializedLength()];
            c.copyTo(bytes, 0);
            out.add(new KeyValue(bytes, 0, bytes.length));
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("encodingsAndCodecs")
    void roundTripsEveryCellAndTheTrailer(DataBlockEncoding encoding, Compression compression) throws Exception {
        List<KeyValue> cells = cells(2000); // ~1.3 MB: many 64 KB blocks
        Path file = dir.resolve("1.sf");
        Trailer written = write(file, cells, options(encoding, compression));
        try (StoreFileReader r = StoreFileReader.open(file, BlockCache.NONE)) {
            Trailer t = r.trailer();
            assertEquals(written, t);
            assertEquals(cells.size(), t.cellCount());
            assertEquals(2000, t.rowCount());
            assertEquals(77, t.maxSequenceId());
            assertEquals(compression, t.compression());
            assertEquals(encoding, t.encoding());
            assertEquals(BloomType.ROW, t.bloom());
            assertEquals(1, t.indexLevels(), "a root index of ~20 entries fits in 128 KB");
            assertTrue(t.blockCount() > 10, "blocks: " + t.blockCount());
            assertEquals(t.blockCount(), r.dataBlockLocations().size());
            assertEquals(cells, StoreFileContents.readAll(r));
            String line = r.toString();
            assertTrue(line.contains(file.toString()) && line.contains(encoding.name()) && line.contains("2000 rows"),
                line);
        }
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void snappyCompressesAndDiffEncodes(DataBlockEncoding encoding) throws Exception {
        List<KeyValue> cells = cells(2000);
        Path snappy = dir.resolve("s.sf");
        Path plain = dir.resolve("p.sf");
        write(snappy, cells, options(encoding, Compression.SNAPPY));
        write(plain, cells, options(encoding, Compression.NONE));
        assertTrue(Files.size(snappy) < Files.size(plain) / 2, "snappy compresses repetitive values");
        if (encoding == DataBlockEncoding.DIFF) {
            Path none = dir.resolve("n.sf");
            write(none, cells, options(DataBlockEncoding.NONE, Compression.NONE));
            assertTrue(Files.size(plain) < Files.size(none), "DIFF files are smaller than NONE files");
        }
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void manySmallBlocksBuildAMultiLevelIndexThatFindsEveryRow(DataBlockEncoding encoding) throws Exception {
        List<KeyValue> cells = cells(1500);
        Path file = dir.resolve("m.sf");
        // 1 KB blocks (~1300 of them, ~900 with DIFF), 256-byte index blocks (~8 entries each): root + 3 or more levels
        StoreFileTuning small = new StoreFileTuning(1024, 256, 0.01, 1024);
        write(file, cells, options(encoding, Compression.NONE), small);
        try (StoreFileReader r = StoreFileReader.open(file, new TestBlockCache(false))) {
            assertTrue(r.trailer().blockCount() > 500, "blocks " + r.trailer().blockCount());
            assertTrue(r.index().levels() >= 3, "levels " + r.index().levels());
            assertTrue(r.index().rootEntries() <= 16, "root entries " + r.index().rootEntries());
            assertEquals(cells, StoreFileContents.readAll(r));
            for (int row = 0; row < 1500; row += 7) {
                String name = rowName(row);
                List<KeyValue> got = new ArrayList<>();
                r.getRow(b(name), got);
                assertEquals(rowOf(cells, name), got, name);
            }
            try (ReadScope scope = new ReadScope()) {
                List<Cell> all = new ArrayList<>();
                var c = r.cursor(b(rowName(700)), scope);
                for (Cell cell = c.peek(); cell != null; c.advance(), cell = c.peek()) {
                    all.add(cell);
                }
                assertEquals(cells.subList(700 * 6, cells.size()), copies(all));
            }
        }
    }

    @Test
    void rowsLongerThanAnIndexBlockMakeADeepButWorkingIndex() throws Exception {
        List<KeyValue> cells = new ArrayList<>();
        for (int r = 0; r < 600; r++) {
            String row = String.format("%05d", r) + "r".repeat(400);
            cells.add(KeyValue.create(b(row), b("f"), b("q"), 1, KeyValue.Type.PUT, b("v" + r)));
        }
        Path file = dir.resolve("deep.sf");
        // one cell per data block; index entries of ~420 bytes: two per 256-byte index block
        write(file, cells, options(DataBlockEncoding.ROW_INDEX_V1, Compression.NONE),
            new StoreFileTuning(1, 256, 0.01, 1024));
        try (StoreFileReader r = StoreFileReader.open(file, new TestBlockCache(false))) {
            assertEquals(600, r.trailer().blockCount());
            assertTrue(r.index().levels() >= 9, "levels " + r.index().levels());
            assertEquals(cells, StoreFileContents.readAll(r));
            for (KeyValue kv : cells) {
                List<KeyValue> got = new ArrayList<>();
                r.getRow(kv.row(), got);
                assertEquals(List.of(kv), got);
            }
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

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void emptyFileIsValid(DataBlockEncoding encoding) throws Exception {
        Path file = dir.resolve("e.sf");
        write(file, List.of(), options(encoding, Compression.SNAPPY));
        try (StoreFileReader r = StoreFileReader.open(file, BlockCache.NONE)) {
            assertEquals(0, r.trailer().cellCount());
            assertEquals(77, r.trailer().maxSequenceId());
            assertFalse(r.mightContainRow(b("any")));
            List<KeyValue> out = new ArrayList<>();
            r.getRow(b("any"), out);
            assertTrue(out.isEmpty());
            assertTrue(StoreFileContents.readAll(r).isEmpty());
            try (ReadScope scope = new ReadScope()) {
                assertNull(r.cursor(new byte[0], scope).peek());
            }
        }
    }

    @Test
    void aFileOfAnotherFormatVersionIsRejectedWithPathAndVersion() throws Exception {
        Path file = dir.resolve("v1.sf");
        write(file, cells(10), StoreFileWriter.Options.of(Compression.NONE));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(f.length() - 12);
            f.writeInt(1);
        }
        IOException e = assertThrows(IOException.class, () -> StoreFileReader.open(file, BlockCache.NONE));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("format version 1"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void aCorruptTrailerOrRootIndexOrFileInfoFailsTheOpen() throws Exception {
        Path file = dir.resolve("t.sf");
        Trailer t = write(file, cells(100), StoreFileWriter.Options.of(Compression.NONE));
        long size = Files.size(file);
        long[] spots = {size - Trailer.SIZE + 3, t.rootIndexOffset() + BlockFormat.HEADER_SIZE + 5,
            t.fileInfoOffset() + BlockFormat.HEADER_SIZE + 2};
        String[] says = {"trailer fails its checksum", "root_index block at offset " + t.rootIndexOffset(),
            "file_info block at offset " + t.fileInfoOffset()};
        for (int i = 0; i < spots.length; i++) {
            Path copy = dir.resolve("c" + i + ".sf");
            Files.copy(file, copy);
            StoreFileReaderTest.flipByte(copy, spots[i]);
            IOException e = assertThrows(IOException.class, () -> StoreFileReader.open(copy, BlockCache.NONE));
            assertTrue(e.getMessage().contains(says[i]) && e.getMessage().contains(copy.toString()), e.getMessage());
        }
    }
}
