package org.heaplab.core.storefile;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.LruBlockCache;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.StorageConstants;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StoreFileReaderTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Compression.class)
    void corruptBlockFailsItsChecksumWithPathAndOffset(Compression compression) throws Exception {
        Path file = dir.resolve("1.sf");
        StoreFileWriterTest.write(file, StoreFileWriterTest.cells(1000), compression, 1);
        long offset;
        try (StoreFileReader r = StoreFileReader.open(file, new LruBlockCache(1 << 20))) {
            offset = r.index().offset(3);
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            long at = offset + StorageConstants.BLOCK_HEADER_SIZE + 20;
            f.seek(at);
            int v = f.read();
            f.seek(at);
            f.write(v ^ 1);
        }
        LruBlockCache cache = new LruBlockCache(1 << 20);
        try (StoreFileReader r = StoreFileReader.open(file, cache)) {
            IOException e = assertThrows(IOException.class, () -> r.readBlock(3));
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertTrue(e.getMessage().contains("offset " + offset), e.getMessage());
            assertTrue(e.getMessage().contains("checksum"), e.getMessage());
            byte[] raw = r.readBlock(2); // neighbours are fine
            byte[] row3 = new KeyValue(raw, 0, KeyValue.serializedLength(raw, 0)).row();
            // a get that lands on the bad block fails too and caches nothing from it
            String firstOfBlock3 = firstRowOf(r, 4);
            assertThrows(IOException.class, () -> r.getRow(b(firstOfBlock3), new ArrayList<>()));
            List<KeyValue> good = new ArrayList<>();
            r.getRow(row3, good);
            assertEquals(6, good.size(), "rows in good blocks still read");
            assertTrue(cache.metrics().get(0).blockCount() > 0);
            assertNull(cache.getBlock(new BlockCacheKey(r.id(), offset), org.heaplab.core.cache.BlockType.DATA, false), "the bad block is never cached");
        }
    }

    private static String firstRowOf(StoreFileReader r, int block) throws IOException {
        byte[] raw = r.readBlock(block);
        return new String(new KeyValue(raw, 0, KeyValue.serializedLength(raw, 0)).row());
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void cachedReadsHitTheCacheAndReturnCopies(Compression compression) throws Exception {
        Path file = dir.resolve("1.sf");
        List<KeyValue> cells = StoreFileWriterTest.cells(500);
        StoreFileWriterTest.write(file, cells, compression, 1);
        LruBlockCache cache = new LruBlockCache(8 << 20);
        try (StoreFileReader r = StoreFileReader.open(file, cache)) {
            List<KeyValue> first = new ArrayList<>();
            r.getRow(b("row000100"), first);
            assertEquals(0, cache.metrics().get(0).hits());
            assertEquals(1, cache.metrics().get(0).misses());
            List<KeyValue> second = new ArrayList<>();
            r.getRow(b("row000100"), second);
            assertEquals(1, cache.metrics().get(0).hits());
            assertEquals(first, second);
            assertEquals(6, second.size());
            for (int i = 0; i < second.size(); i++) {
                assertNotSame(first.get(i).getBuffer(), second.get(i).getBuffer(), "each read copies onto the heap");
                assertEquals(second.get(i).getLength(), second.get(i).getBuffer().length);
            }
        }
        assertEquals(0, cache.metrics().get(0).blockCount(), "closing the reader evicts its blocks");
    }
}
