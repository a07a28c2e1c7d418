package org.heaplab.core.storefile;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.HeapCopyReadPath;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellCursor;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.encoding.BlockSeeker;
import org.heaplab.core.encoding.Encodings;
import org.heaplab.core.io.DataBlockEncoding;

/**
 * Reads what {@link StoreFileWriter} writes. At open it reads the trailer, the root index and the file
 * info (first/last row, bloom chunk index) and keeps them; everything else is read on demand.
 *
 * <p>Reads for gets and scans go through the block cache: a miss reads the block from disk (a heap
 * byte[]), verifies it, decompresses it and offers it to the cache; a hit passes the cached block
 * through the {@link ReadPath} (heap-copy: off-heap bytes copied to the heap, reference released;
 * zero-copy: the read's {@link ReadScope} keeps the reference until the response is written). Cells
 * from data blocks are whatever the encoding's seeker returns (views for NONE and ROW_INDEX_V1, heap
 * copies for DIFF), valid while the scope is open. Index and bloom blocks are used on the heap and their
 * references released inside the call.
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
    private final ReadPath readPath;
    private final boolean inMemory;
    private final long id = NEXT_ID.incrementAndGet();
    private final long size;
    private final Trailer trailer;
    private final BlockIndex index;
    private final FileInfo info;
    private final BloomFilter bloom;
    private final AtomicInteger refs = new AtomicInteger(1);
    private final BlockIndex.Loader indexLoader = loc -> metaBlock(BlockKind.INDEX, loc);
    private final BloomFilter.ChunkLoader bloomLoader = loc -> metaBlock(BlockKind.BLOOM_CHUNK, loc);

    private StoreFileReader(Path path, FileChannel channel, BlockCache cache, ReadPath readPath, boolean inMemory)
        throws IOException {
        this.path = path;
        this.channel = channel;
        this.cache = cache;
        this.readPath = readPath;
        this.inMemory = inMemory;
        this.size = channel.size();
        if (size < Trailer.TAIL_SIZE) {
            throw new IOException("store file " + path + " is too short (" + size + " bytes) for a trailer");
        }
        Trailer.checkTail(read(size - Trailer.TAIL_SIZE, Trailer.TAIL_SIZE), path.toString());
        if (size < Trailer.SIZE) {
            throw new IOException("store file " + path + " is too short (" + size + " bytes) for a trailer");
        }
        this.trailer = Trailer.decode(read(size - Trailer.SIZE, Trailer.SIZE), path.toString());
        long metaEnd = size - Trailer.SIZE;
        checkLocation(trailer.rootIndexOffset(), trailer.rootIndexSize(), trailer.dataSectionEnd(), metaEnd, "root index");
        checkLocation(trailer.fileInfoOffset(), trailer.fileInfoSize(), trailer.dataSectionEnd(), metaEnd, "file info");
        byte[] root = readVerified(BlockKind.ROOT_INDEX, new BlockLocation(trailer.rootIndexOffset(),
            trailer.rootIndexSize()));
        this.index = new BlockIndex(new IndexBlock(ByteBuffer.wrap(root)), trailer.indexLevels(), trailer.blockCount());
        this.info = FileInfo.decode(readVerified(BlockKind.FILE_INFO, new BlockLocation(trailer.fileInfoOffset(),
            trailer.fileInfoSize())));
        this.bloom = info.bloomHashCount() > 0
            ? new BloomFilter(info.bloomHashCount(), new IndexBlock(ByteBuffer.wrap(info.bloomChunkIndex()))) : null;
    }

    private void checkLocation(long offset, int onDisk, long from, long to, String what) throws IOException {
        if (offset < from || onDisk < BlockFormat.HEADER_SIZE || offset + onDisk > to) {
            throw new IOException("store file " + path + ": " + what + " at offset " + offset + " (" + onDisk
                + " bytes) lies outside its section [" + from + ", " + to + ")");
        }
    }

    /**
     * Opens a store file whose blocks are read through {@code cache} and served through {@code readPath};
     * {@code inMemory}: the family is IN_MEMORY (blocks cached with the in-memory priority).
     */
    public static StoreFileReader open(Path path, BlockCache cache, ReadPath readPath, boolean inMemory)
        throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new StoreFileReader(path, ch, cache, readPath, inMemory);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Opens a store file with the 1.x read path (heap-copy) and normal cache priority. */
    public static StoreFileReader open(Path path, BlockCache cache) throws IOException {
        return open(path, cache, new HeapCopyReadPath(), false);
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

    public DataBlockEncoding encoding() {
        return trailer.encoding();
    }

    /**
     * False only when {@code row} is certainly not in this file: outside its first..last row, or (with a
     * ROW bloom filter) the bloom says so. Counts bloom checks and negatives.
     */
    public boolean mightContainRow(byte[] row) throws IOException {
        if (outsideRowRange(row)) {
            return false;
        }
        if (bloom == null) {
            return true;
        }
        StoreFileReadCounters.BLOOM_CHECKS.increment();
        boolean maybe = bloom.mightContain(row, bloomLoader);
        if (!maybe) {
            StoreFileReadCounters.BLOOM_NEGATIVES.increment();
        }
        return maybe;
    }

    private boolean outsideRowRange(byte[] row) {
        return trailer.cellCount() == 0 || Arrays.compareUnsigned(info.firstRow(), row) > 0
            || Arrays.compareUnsigned(info.lastRow(), row) < 0;
    }

    /**
     * Appends every cell of {@code row} to {@code out}, in cell order. Cells may point into cached blocks
     * whose references {@code scope} holds: valid until the scope is closed.
     *
     * <p>Does not consult the bloom filter (only the file's row range): a get calls
     * {@link #mightContainRow} first and skips the file when it says no, so each file's bloom is
     * checked (and counted) once per get.
     */
    public void getRow(byte[] row, ReadScope scope, List<Cell> out) throws IOException {
        if (outsideRowRange(row)) {
            return;
        }
        BlockIndex.Cursor blocks = index.seek(row, indexLoader);
        while (blocks != null) {
            BlockSeeker seeker = Encodings.seeker(trailer.encoding(), dataBlock(blocks.location(), scope).data());
            if (seeker.seekToRow(row)) {
                do {
                    if (seeker.compareCurrentRow(row) != 0) {
                        return; // the next row begins: done
                    }
                    out.add(seeker.current());
                } while (seeker.next());
            }
            // the row may continue in the next block, unless that one starts with a later row
            if (!blocks.next() || blocks.compareFirstRow(row) > 0) {
                return;
            }
        }
    }

    /**
     * Appends every cell of {@code row} to {@code out} as fresh heap copies (the unscoped API: no
     * scope to hold cache references; like the scoped getRow it does not consult the bloom filter).
     */
    public void getRow(byte[] row, List<KeyValue> out) throws IOException {
        List<Cell> cells = new ArrayList<>();
        try (ReadScope scope = new ReadScope()) {
            getRow(row, scope, cells);
            for (Cell c : cells) {
                byte[] copy = new byte[c.getSerializedLength()];
                c.copyTo(copy, 0);
                out.add(new KeyValue(copy, 0, copy.length));
            }
        }
    }

    /**
     * A cursor over the file's cells from the first cell whose row is >= {@code startRow} (empty: the
     * first cell), reading blocks through the cache; cells valid until {@code scope} is closed.
     *
     * @throws UncheckedIOException when a block cannot be read (a corrupt block names path and offset)
     */
    public CellCursor cursor(byte[] startRow, ReadScope scope) {
        try {
            return new StoreFileCursor(this, index.seek(startRow, indexLoader), startRow, scope);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A data block for a get or scan: from the cache through the read path, or from disk (verified,
     * decompressed, offered to the cache; counted in {@link StoreFileReadCounters}).
     */
    Block dataBlock(BlockLocation loc, ReadScope scope) throws IOException {
        BlockCacheKey key = new BlockCacheKey(id, loc.offset());
        Block cached = cache.getBlock(key, BlockType.DATA, true);
        if (cached != null) {
            return readPath.use(cached, scope);
        }
        checkLocation(loc.offset(), loc.onDiskSize(), 0, trailer.dataSectionEnd(), "data block");
        byte[] bytes = readVerified(BlockKind.DATA, loc);
        StoreFileReadCounters.DATA_BLOCKS_READ.increment();
        StoreFileReadCounters.BYTES_READ.add(loc.onDiskSize());
        Block block = Block.onHeap(BlockType.DATA, bytes);
        cache.cacheBlock(key, block, inMemory);
        return block;
    }

    /**
     * An index or bloom block's bytes on the heap: a cached block is used where it lives when on heap,
     * copied when off heap, and its reference released before returning (never held past the call).
     */
    private ByteBuffer metaBlock(BlockKind kind, BlockLocation loc) throws IOException {
        BlockCacheKey key = new BlockCacheKey(id, loc.offset());
        Block cached = cache.getBlock(key, kind.cacheType, true);
        if (cached != null) {
            try {
                if (!cached.isOffHeap()) {
                    return cached.data();
                }
                byte[] copy = new byte[cached.size()];
                cached.data().get(0, copy);
                return ByteBuffer.wrap(copy);
            } finally {
                cached.release();
            }
        }
        if (kind == BlockKind.INDEX) {
            checkLocation(loc.offset(), loc.onDiskSize(), trailer.dataSectionEnd(), trailer.rootIndexOffset(),
                "index block");
        } else {
            checkLocation(loc.offset(), loc.onDiskSize(), 0, trailer.dataSectionEnd(), "bloom chunk");
        }
        byte[] bytes = readVerified(kind, loc);
        StoreFileReadCounters.BYTES_READ.add(loc.onDiskSize());
        cache.cacheBlock(key, Block.onHeap(kind.cacheType, bytes), inMemory);
        return ByteBuffer.wrap(bytes);
    }

    /** Reads one block from disk, verifies its checksum and kind and decompresses it (no cache). */
    private byte[] readVerified(BlockKind kind, BlockLocation loc) throws IOException {
        return BlockFormat.unframe(read(loc.offset(), loc.onDiskSize()), kind, trailer.compression(),
            path.toString(), loc.offset());
    }

    /** The locations of every data block in file order (walks the whole index; tests and tools). */
    List<BlockLocation> dataBlockLocations() throws IOException {
        List<BlockLocation> all = new ArrayList<>();
        BlockIndex.Cursor c = index.first(loc -> readFromDisk(BlockKind.INDEX, loc));
        while (c != null) {
            all.add(c.location());
            if (!c.next()) {
                break;
            }
        }
        return all;
    }

    /** The locations of the bloom filter's chunks (empty without a bloom; tests and tools). */
    List<BlockLocation> bloomChunkLocations() {
        List<BlockLocation> all = new ArrayList<>();
        for (int i = 0; bloom != null && i < bloom.chunkCount(); i++) {
            all.add(bloom.chunk(i));
        }
        return all;
    }

    /** Every cell of the file in order, block by block, bypassing the cache (compaction's read). */
    public Iterator<KeyValue> scanner() {
        return new StoreFileScanner(this);
    }

    /** Reads one data or index block from disk, verified and decompressed, bypassing the cache. */
    ByteBuffer readFromDisk(BlockKind kind, BlockLocation loc) throws IOException {
        return ByteBuffer.wrap(readVerified(kind, loc));
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

    /** One line for logs: the file and what its trailer says. */
    @Override
    public String toString() {
        return "store file " + path + " (v" + Trailer.VERSION + ", " + trailer.encoding() + ", " + trailer.compression()
            + ", bloom " + trailer.bloom() + ": " + trailer.cellCount() + " cells in " + trailer.rowCount() + " rows, "
            + trailer.blockCount() + " data blocks, " + trailer.indexLevels() + " index level(s), "
            + (bloom == null ? 0 : bloom.chunkCount()) + " bloom chunk(s))";
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
