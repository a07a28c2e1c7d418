package org.heaplab.core.storefile;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.StorageConstants;

/**
 * Decodes what {@link StoreFileWriter} writes: opens the trailer and block index, then serves row
 * reads through the block cache and sequential scans (for compaction) around it.
 *
 * <p>Every block is checked against its CRC32C before it is decompressed or used; a block that fails
 * throws an IOException naming the file and the block's offset and is never returned or cached.
 *
 * <p>Lifetime: the store that opens a reader holds one reference; every read takes another with
 * {@link #tryRetain} and gives it back with {@link #release}. The file is closed (and its cached blocks
 * evicted) when the count reaches zero, so a compaction can retire a file while gets still read it.
 *
 * <p>Thread safety: safe for concurrent reads (positional reads on a shared FileChannel).
 */
public final class StoreFileReader implements Closeable {
    private static final AtomicLong NEXT_ID = new AtomicLong();

    private final Path path;
    private final FileChannel channel;
    private final BlockCache cache;
    private final long id = NEXT_ID.incrementAndGet();
    private final long size;
    private final Trailer trailer;
    private final BlockIndex index;
    private final AtomicInteger refs = new AtomicInteger(1);

    private StoreFileReader(Path path, FileChannel channel, BlockCache cache) throws IOException {
        this.path = path;
        this.channel = channel;
        this.cache = cache;
        this.size = channel.size();
        if (size < Trailer.SIZE) {
            throw new IOException("store file " + path + " is too short (" + size + " bytes) for a trailer");
        }
        this.trailer = Trailer.decode(read(size - Trailer.SIZE, Trailer.SIZE), path.toString());
        if (trailer.indexOffset() < 0 || trailer.indexOffset() + trailer.indexSize() > size - Trailer.SIZE) {
            throw new IOException("store file " + path + ": trailer points outside the file");
        }
        this.index = BlockIndex.decode(read(trailer.indexOffset(), trailer.indexSize()), path.toString());
    }

    /** Opens a store file; blocks read for gets go through {@code cache}. */
    public static StoreFileReader open(Path path, BlockCache cache) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new StoreFileReader(path, ch, cache);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    public Path path() {
        return path;
    }

    public long id() {
        return id;
    }

    public long sizeBytes() {
        return size;
    }

    public Trailer trailer() {
        return trailer;
    }

    public BlockIndex index() {
        return index;
    }

    /**
     * Opens a store file whose cached blocks are served through {@code readPath}; {@code inMemory}: the
     * family is IN_MEMORY (blocks cached with the in-memory priority).
     * TODO(issue 4, store-file helper): readPath and inMemory are not used yet.
     */
    public static StoreFileReader open(Path path, BlockCache cache, org.heaplab.core.cache.ReadPath readPath,
                                       boolean inMemory) throws IOException {
        return open(path, cache);
    }

    /** False only when the row is certainly not in this file (bloom filter); true without a bloom. */
    public boolean mightContainRow(byte[] row) throws IOException {
        return true; // TODO(issue 4, store-file helper)
    }

    /**
     * Appends every cell of {@code row} to {@code out}, in cell order. Cells may point into cached
     * blocks whose references {@code scope} holds: valid until the scope is closed.
     */
    public void getRow(byte[] row, org.heaplab.core.cache.ReadScope scope, List<org.heaplab.core.cell.Cell> out)
        throws IOException {
        List<KeyValue> kvs = new ArrayList<>();
        getRow(row, kvs);
        out.addAll(kvs);
    }

    /**
     * A cursor over the file's cells from the first cell whose row is >= {@code startRow} (empty: the
     * first cell), reading blocks through the cache; cells valid until {@code scope} is closed.
     * TODO(issue 4, store-file helper): seek through the index instead of scanning from the start.
     */
    public org.heaplab.core.cell.CellCursor cursor(byte[] startRow, org.heaplab.core.cache.ReadScope scope) {
        Iterator<KeyValue> it = scanner();
        return new org.heaplab.core.cell.CellCursor() {
            private KeyValue current = advanceFrom();

            private KeyValue advanceFrom() {
                while (it.hasNext()) {
                    KeyValue kv = it.next();
                    if (CellComparator.compareRow(kv, startRow) >= 0) {
                        return kv;
                    }
                }
                return null;
            }

            @Override
            public org.heaplab.core.cell.Cell peek() {
                return current;
            }

            @Override
            public void advance() {
                current = it.hasNext() ? it.next() : null;
            }
        };
    }

    /**
     * Appends every cell of {@code row} to {@code out}, in cell order. Each returned cell is a fresh copy
     * on the heap (cached blocks are shared and never handed out).
     */
    public void getRow(byte[] row, List<KeyValue> out) throws IOException {
        int first = index.firstBlockFor(row);
        if (first < 0) {
            return;
        }
        for (int b = first; b < index.blockCount() && !index.startsAfter(b, row); b++) {
            byte[] block = cachedBlock(b);
            int pos = 0;
            while (pos < block.length) {
                int len = KeyValue.serializedLength(block, pos);
                KeyValue kv = new KeyValue(block, pos, len);
                int c = CellComparator.compareRow(kv, row);
                if (c > 0) {
                    return;
                }
                if (c == 0) {
                    out.add(new KeyValue(Arrays.copyOfRange(block, pos, pos + len), 0, len));
                }
                pos += len;
            }
        }
    }

    private byte[] cachedBlock(int b) throws IOException {
        // TODO(issue 4, store-file helper): serve cells from the Block through a ReadPath and ReadScope
        BlockCacheKey key = new BlockCacheKey(id, index.offset(b));
        org.heaplab.core.cache.Block cached = cache.getBlock(key, org.heaplab.core.cache.BlockType.DATA, true);
        if (cached != null) {
            try {
                byte[] copy = new byte[cached.size()];
                cached.data().duplicate().get(copy);
                return copy;
            } finally {
                cached.release();
            }
        }
        byte[] block = readBlock(b);
        cache.cacheBlock(key, org.heaplab.core.cache.Block.onHeap(org.heaplab.core.cache.BlockType.DATA, block), false);
        return block;
    }

    /** Reads, verifies and decompresses block {@code b} from disk (no cache). */
    public byte[] readBlock(int b) throws IOException {
        long offset = index.offset(b);
        int onDisk = index.size(b);
        if (onDisk < StorageConstants.BLOCK_HEADER_SIZE || offset + onDisk > trailer.indexOffset()) {
            throw new IOException("store file " + path + ": block at offset " + offset + " has a bad index entry");
        }
        byte[] raw = read(offset, onDisk);
        ByteBuffer h = ByteBuffer.wrap(raw);
        int payloadSize = h.getInt();
        int uncompressed = h.getInt();
        int crc = h.getInt();
        CRC32C c = new CRC32C();
        c.update(raw, 0, 8);
        c.update(raw, StorageConstants.BLOCK_HEADER_SIZE, raw.length - StorageConstants.BLOCK_HEADER_SIZE);
        if ((int) c.getValue() != crc || payloadSize != onDisk - StorageConstants.BLOCK_HEADER_SIZE) {
            throw new IOException("store file " + path + ": block at offset " + offset + " fails its checksum");
        }
        byte[] payload = Arrays.copyOfRange(raw, StorageConstants.BLOCK_HEADER_SIZE, raw.length);
        try {
            return BlockCompression.decompress(trailer.compression(), payload, uncompressed);
        } catch (IOException e) {
            throw new IOException("store file " + path + ": block at offset " + offset + " does not decompress: "
                + e.getMessage(), e);
        }
    }

    /** Every cell of the file in order, block by block, bypassing the cache (compaction's read). */
    public Iterator<KeyValue> scanner() {
        return new Iterator<>() {
            private int nextBlock;
            private byte[] block = new byte[0];
            private int pos;

            @Override
            public boolean hasNext() {
                while (pos >= block.length) {
                    if (nextBlock >= index.blockCount()) {
                        return false;
                    }
                    try {
                        block = readBlock(nextBlock++);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    pos = 0;
                }
                return true;
            }

            @Override
            public KeyValue next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                int len = KeyValue.serializedLength(block, pos);
                KeyValue kv = new KeyValue(block, pos, len);
                pos += len;
                return kv;
            }
        };
    }

    /** Every cell of the file (tests and tools; small files only). */
    public List<KeyValue> readAll() throws IOException {
        List<KeyValue> all = new ArrayList<>();
        try {
            scanner().forEachRemaining(all::add);
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        return all;
    }

    private byte[] read(long offset, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            if (channel.read(b, offset + b.position()) < 0) {
                throw new IOException("store file " + path + " ends early at offset " + (offset + b.position()));
            }
        }
        return b.array();
    }

    /** Takes a read reference; false when the reader is already closed (re-read the store's file list). */
    public boolean tryRetain() {
        while (true) {
            int r = refs.get();
            if (r <= 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    /** Gives back a reference; the last one closes the file and evicts its cached blocks. */
    public void release() throws IOException {
        if (refs.decrementAndGet() == 0) {
            cache.evictBlocksByFile(id);
            channel.close();
        }
    }

    /** Gives back the opener's reference. */
    @Override
    public void close() throws IOException {
        release();
    }
}
