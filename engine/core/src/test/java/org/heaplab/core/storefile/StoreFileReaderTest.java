package org.heaplab.core.storefile;

import static org.heaplab.core.TestKv.b;
import static org.heaplab.core.storefile.StoreFileWriterTest.cells;
import static org.heaplab.core.storefile.StoreFileWriterTest.copies;
import static org.heaplab.core.storefile.StoreFileWriterTest.rowName;
import static org.heaplab.core.storefile.StoreFileWriterTest.rowOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.HeapCopyReadPath;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cache.ZeroCopyReadPath;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellCursor;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class StoreFileReaderTest {
    @TempDir
    Path dir;

    static void flipByte(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            int v = f.read();
            f.seek(at);
            f.write(v ^ 1);
        }
    }

    /** Every encoding x {heap cache, off-heap cache} x {heap-copy, zero-copy}. */
    static Stream<Arguments> readSetups() {
        List<Arguments> all = new ArrayList<>();
        for (DataBlockEncoding e : DataBlockEncoding.values()) {
            for (boolean offHeap : new boolean[] {false, true}) {
                for (ReadPath p : new ReadPath[] {new HeapCopyReadPath(), new ZeroCopyReadPath()}) {
                    all.add(Arguments.of(e, offHeap, p));
                }
            }
        }
        return all.stream();
    }

    private Path writeFile(DataBlockEncoding e, Compression c, int rows) throws IOException {
        Path file = dir.resolve("1.sf");
        StoreFileWriterTest.write(file, cells(rows), StoreFileWriterTest.options(e, c));
        return file;
    }

    @ParameterizedTest
    @MethodSource("readSetups")
    void getsAndCursorsThroughTheCacheReturnExactlyTheFilesCells(DataBlockEncoding e, boolean offHeap, ReadPath path)
        throws Exception {
        List<KeyValue> cells = cells(1000);
        Path file = writeFile(e, Compression.SNAPPY, 1000);
        TestBlockCache cache = new TestBlockCache(offHeap);
        try (StoreFileReader r = StoreFileReader.open(file, cache, path, true)) {
            for (int pass = 0; pass < 2; pass++) { // the first pass fills the cache, the second hits it
                for (int row = 0; row < 1000; row += 13) {
                    String name = rowName(row);
                    try (ReadScope scope = new ReadScope()) {
                        List<Cell> got = new ArrayList<>();
                        r.getRow(b(name), scope, got);
                        assertEquals(rowOf(cells, name), copies(got), name);
                        if (pass == 1 || !offHeap) { // pass 0 mixes fresh heap blocks and cached ones
                            checkShape(got, e, offHeap, path);
                        }
                    }
                    assertEquals(0, cache.outstanding.get(), "closing the scope released every block");
                }
                try (ReadScope scope = new ReadScope()) {
                    List<Cell> got = new ArrayList<>();
                    r.getRow(b("row000500x"), scope, got); // absent, between two rows
                    r.getRow(b("row999999"), scope, got); // after the last row
                    r.getRow(b("a"), scope, got); // before the first row
                    assertTrue(got.isEmpty());
                }
                for (String start : new String[] {"", "row000000", "row000417", "row000417x", "row000999"}) {
                    try (ReadScope scope = new ReadScope()) {
                        List<Cell> got = new ArrayList<>();
                        CellCursor c = r.cursor(b(start), scope);
                        for (Cell cell = c.peek(); cell != null; c.advance(), cell = c.peek()) {
                            got.add(cell);
                        }
                        List<KeyValue> expected = cells.stream()
                            .filter(kv -> java.util.Arrays.compareUnsigned(kv.row(), b(start)) >= 0).toList();
                        assertEquals(expected, copies(got), "cursor from '" + start + "'");
                    }
                    assertEquals(0, cache.outstanding.get());
                }
            }
            assertTrue(cache.hits(BlockType.DATA) > 0);
            assertEquals(r.trailer().blockCount(), cache.inserts(BlockType.DATA), "each data block read from disk once");
            assertTrue(cache.inMemory.values().stream().allMatch(Boolean::booleanValue), "in-memory family's flag");
        }
    }

    /** NONE and ROW_INDEX_V1 cells are views: off heap only when the zero-copy path serves a direct block. */
    private static void checkShape(List<Cell> cells, DataBlockEncoding e, boolean directBlock, ReadPath path) {
        for (Cell c : cells) {
            if (e == DataBlockEncoding.DIFF) {
                assertInstanceOf(KeyValue.class, c);
            } else if (directBlock && path instanceof ZeroCopyReadPath) {
                assertInstanceOf(ByteBufferKeyValue.class, c, "zero copy: a view over the off-heap block");
            } else {
                KeyValue kv = assertInstanceOf(KeyValue.class, c);
                assertTrue(kv.getBuffer().length > kv.getLength(), "a view into a whole heap block, not a copy");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void zeroCopyScopeHoldsOffHeapBlocksUntilClosedHeapCopyReleasesAtOnce(DataBlockEncoding e) throws Exception {
        Path file = writeFile(e, Compression.NONE, 500);
        TestBlockCache cache = new TestBlockCache(true);
        try (StoreFileReader zero = StoreFileReader.open(file, cache, new ZeroCopyReadPath(), false)) {
            zero.getRow(b("row000100"), new ArrayList<>()); // warm the cache
            zero.getRow(b("row000300"), new ArrayList<>());
            ReadScope scope = new ReadScope();
            List<Cell> got = new ArrayList<>();
            zero.getRow(b("row000100"), scope, got);
            zero.getRow(b("row000300"), scope, got);
            assertEquals(12, got.size());
            assertTrue(cache.outstanding.get() >= 2, "the scope holds the blocks its cells point into");
            assertEquals(cache.outstanding.get(), scope.heldBlocks());
            scope.close();
            assertEquals(0, cache.outstanding.get());
        }
        TestBlockCache cache2 = new TestBlockCache(true);
        try (StoreFileReader copy = StoreFileReader.open(file, cache2, new HeapCopyReadPath(), false)) {
            copy.getRow(b("row000100"), new ArrayList<>());
            try (ReadScope scope = new ReadScope()) {
                List<Cell> got = new ArrayList<>();
                copy.getRow(b("row000100"), scope, got);
                assertEquals(0, cache2.outstanding.get(), "heap-copy released the reference at once");
                assertEquals(0, scope.heldBlocks());
                assertEquals(6, got.size());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void countersCountDiskReadsNotCacheHits(Compression compression) throws Exception {
        Path file = writeFile(DataBlockEncoding.ROW_INDEX_V1, compression, 1000);
        TestBlockCache cache = new TestBlockCache(false);
        try (StoreFileReader r = StoreFileReader.open(file, cache)) {
            StoreFileReadCounters.Snapshot before = StoreFileReadCounters.snapshot();
            List<KeyValue> out = new ArrayList<>();
            assertTrue(r.mightContainRow(b("row000100")));
            r.getRow(b("row000100"), out);
            StoreFileReadCounters.Snapshot first = StoreFileReadCounters.snapshot().minus(before);
            assertEquals(1, first.dataBlocksRead());
            assertEquals(1, first.bloomChecks());
            assertTrue(first.bytesRead() > 0);
            assertTrue(r.mightContainRow(b("row000100")));
            r.getRow(b("row000100"), out);
            StoreFileReadCounters.Snapshot second = StoreFileReadCounters.snapshot().minus(before);
            assertEquals(1, second.dataBlocksRead(), "a cache hit reads nothing from disk");
            assertEquals(first.bytesRead(), second.bytesRead());
            assertEquals(2, second.bloomChecks());
            assertEquals(1, cache.hits(BlockType.BLOOM), "the bloom chunk was cached as BLOOM");
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void aCorruptDataBlockIsReportedWithPathAndOffsetAndNeverCached(Compression compression) throws Exception {
        Path file = writeFile(DataBlockEncoding.NONE, compression, 1000);
        BlockLocation bad;
        byte[] firstRowOfBad;
        try (StoreFileReader r = StoreFileReader.open(file, new TestBlockCache(false))) {
            bad = r.dataBlockLocations().get(3);
            byte[] raw = StoreFileContents.readBlock(r, 3);
            firstRowOfBad = new KeyValue(raw, 0, KeyValue.serializedLength(raw, 0)).row();
        }
        flipByte(file, bad.offset() + BlockFormat.HEADER_SIZE + 20);
        TestBlockCache cache = new TestBlockCache(false);
        try (StoreFileReader r = StoreFileReader.open(file, cache)) {
            IOException e = assertThrows(IOException.class, () -> StoreFileContents.readBlock(r, 3));
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertTrue(e.getMessage().contains("offset " + bad.offset()), e.getMessage());
            assertTrue(e.getMessage().contains("checksum"), e.getMessage());
            IOException get = assertThrows(IOException.class, () -> r.getRow(firstRowOfBad, new ArrayList<>()));
            assertTrue(get.getMessage().contains("offset " + bad.offset()), get.getMessage());
            try (ReadScope scope = new ReadScope()) {
                IOException scan = assertThrows(IOException.class, () -> {
                    try {
                        CellCursor c = r.cursor(b(rowName(0)), scope);
                        while (c.peek() != null) {
                            c.advance();
                        }
                    } catch (UncheckedIOException u) {
                        throw u.getCause();
                    }
                });
                assertTrue(scan.getMessage().contains("offset " + bad.offset()), scan.getMessage());
            }
            IOException compaction = assertThrows(IOException.class, () -> StoreFileContents.readAll(r));
            assertTrue(compaction.getMessage().contains("offset " + bad.offset()), "compaction's scanner too");
            assertFalse(cache.contains(r.id(), bad.offset()), "the bad block is never cached");
            List<KeyValue> good = new ArrayList<>();
            r.getRow(b("row000010"), good);
            assertEquals(6, good.size(), "rows in good blocks still read");
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void aCorruptIndexBlockIsReportedWithPathAndOffset(Compression compression) throws Exception {
        Path file = dir.resolve("m.sf");
        StoreFileWriterTest.write(file, cells(500), StoreFileWriterTest.options(DataBlockEncoding.DIFF, compression),
            new StoreFileTuning(1024, 256, 0.01, 1024));
        long indexBlock;
        try (StoreFileReader r = StoreFileReader.open(file, new TestBlockCache(false))) {
            assertTrue(r.index().levels() >= 2);
            indexBlock = r.trailer().dataSectionEnd(); // the first leaf index block
        }
        flipByte(file, indexBlock + BlockFormat.HEADER_SIZE + 3);
        TestBlockCache cache = new TestBlockCache(false);
        try (StoreFileReader r = StoreFileReader.open(file, cache)) {
            IOException e = assertThrows(IOException.class, () -> r.getRow(b(rowName(0)), new ArrayList<>()));
            assertTrue(e.getMessage().contains("index block at offset " + indexBlock), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertFalse(cache.contains(r.id(), indexBlock));
            List<KeyValue> late = new ArrayList<>();
            r.getRow(b(rowName(499)), late);
            assertEquals(6, late.size(), "rows under other leaves still read");
            assertTrue(cache.inserts(BlockType.LEAF_INDEX) > 0, "good leaves are cached as LEAF_INDEX");
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void aCorruptBloomChunkIsReportedWithPathAndOffset(Compression compression) throws Exception {
        Path file = writeFile(DataBlockEncoding.NONE, compression, 1000);
        BlockLocation chunk;
        try (StoreFileReader r = StoreFileReader.open(file, new TestBlockCache(false))) {
            chunk = r.bloomChunkLocations().get(0);
        }
        flipByte(file, chunk.offset() + BlockFormat.HEADER_SIZE + 7);
        TestBlockCache cache = new TestBlockCache(false);
        try (StoreFileReader r = StoreFileReader.open(file, cache)) {
            IOException e = assertThrows(IOException.class, () -> r.mightContainRow(b(rowName(5))));
            assertTrue(e.getMessage().contains("bloom_chunk block at offset " + chunk.offset()), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertFalse(cache.contains(r.id(), chunk.offset()));
        }
    }

    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void aFileWithoutBloomReadsTheSame(DataBlockEncoding e) throws Exception {
        List<KeyValue> cells = cells(300);
        Path file = dir.resolve("nb.sf");
        StoreFileWriterTest.write(file, cells, new StoreFileWriter.Options(Compression.NONE, e, BloomType.NONE));
        try (StoreFileReader r = StoreFileReader.open(file, new TestBlockCache(false))) {
            assertEquals(BloomType.NONE, r.trailer().bloom());
            assertTrue(r.bloomChunkLocations().isEmpty());
            assertTrue(r.mightContainRow(b("row000100x")), "no bloom: only the row range can say no");
            assertFalse(r.mightContainRow(b("row999999")), "after the last row");
            List<KeyValue> got = new ArrayList<>();
            r.getRow(b(rowName(123)), got);
            assertEquals(rowOf(cells, rowName(123)), got);
        }
    }
}
