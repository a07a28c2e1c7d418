package org.heaplab.core.storefile;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.encoding.DataBlockEncoder;
import org.heaplab.core.encoding.Encodings;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;

/**
 * Writes an immutable, sorted store file (the engine's HFile), format version 2. Every byte, big-endian
 * (also in engine/docs/store-file.md):
 *
 * <pre>
 *   file       := (dataBlock | bloomChunk)*     the data section: data blocks in cell order; a bloom
 *                                               chunk is written as soon as it is full
 *                 indexBlock*                   non-root levels of the block index, leaves first
 *                 rootIndex fileInfo trailer
 *   block      := byte kind, int32 onDiskPayloadSize, int32 uncompressedSize,
 *                 int32 crc32c (of the 9 bytes before it and the payload), payload
 *                 (BlockFormat; kinds 1 DATA, 2 INDEX, 3 BLOOM_CHUNK, 4 ROOT_INDEX, 5 FILE_INFO; the
 *                 payload is compressed with the file's codec, NONE or SNAPPY)
 *   dataBlock  := block of kind 1: cells in the family's encoding (NoneEncoder, DiffEncoder,
 *                 RowIndexV1Encoder); closes once the encoded cells reach 64 KB (DATA_BLOCK_SIZE)
 *   indexBlock, rootIndex := IndexBlock payload: int32 entryCount, int32 entryOffset[entryCount],
 *                 entry := int64 blockOffset, int32 blockOnDiskSize, int16 rowLength, row (the first row
 *                 of the named block). The root names data blocks (1 level) or index blocks of the level
 *                 below; a level is split into blocks of at most hfile.index.block.max.size bytes.
 *   bloomChunk := block of kind 3: a bit array sized for its rows at io.storefile.bloom.error.rate
 *                 (BloomChunk), at most io.storefile.bloom.block.size bytes
 *   fileInfo   := int16 firstRowLength, firstRow, int16 lastRowLength, lastRow, int32 bloomHashCount,
 *                 int32 bloomChunkIndexLength, bloomChunkIndex (IndexBlock payload naming the chunks)
 *   trailer    := int64 rootIndexOffset, int32 rootIndexOnDiskSize, int32 indexLevels,
 *                 int64 fileInfoOffset, int32 fileInfoOnDiskSize, int64 dataSectionEnd,
 *                 int32 dataBlockCount, int64 cellCount, int64 rowCount, int64 maxSequenceId,
 *                 byte compressionCode (0 NONE, 1 SNAPPY), byte dataBlockEncodingId (HBase ids: 0 NONE,
 *                 3 DIFF, 7 ROW_INDEX_V1), byte bloomTypeCode (0 NONE, 1 ROW), byte 0,
 *                 int32 crc32c (of the 68 bytes before it), int32 formatVersion (2),
 *                 int64 magic (StorageConstants.STORE_FILE_MAGIC)     -- Trailer.SIZE = 84 bytes
 * </pre>
 *
 * <p>Invariants: cells arrive in strictly increasing {@link CellComparator} order, all of one family;
 * every data block holds at least one cell; a row may continue from one data block into the next; the
 * file is fsynced by {@link #finish} and only then may be renamed into a store (callers write under a
 * temporary name and publish with AtomicFiles).
 *
 * <p>Thread safety: not thread safe; one writer per file.
 */
public final class StoreFileWriter implements Closeable {
    private final Path path;
    private final Options options;
    private final StoreFileTuning tuning;
    private final FileOutputStream file;
    private final OutputStream out;
    private final DataBlockEncoder encoder;
    private final BlockIndexWriter index;
    private final BloomFilterWriter bloom;
    private final BlockSink sink = this::writeBlock;
    private byte[] blockFirstRow;
    private byte[] firstRow;
    private KeyValue previous;
    private long written;
    private long cellCount;
    private long rowCount;
    private boolean finished;

    /** What a family asks of its store files (TableDescriptor: COMPRESSION, DATA_BLOCK_ENCODING, BLOOMFILTER). */
    public record Options(Compression compression, DataBlockEncoding encoding, BloomType bloom) {
        /** {@code compression} with HBase's defaults for the rest: NONE encoding, ROW bloom filter. */
        public static Options of(Compression compression) {
            return new Options(compression, DataBlockEncoding.NONE, BloomType.ROW);
        }
    }

    public StoreFileWriter(Path path, Options options) throws IOException {
        this(path, options, StoreFileTuning.DEFAULT);
    }

    public StoreFileWriter(Path path, Options options, StoreFileTuning tuning) throws IOException {
        this.path = path;
        this.options = options;
        this.tuning = tuning;
        this.encoder = Encodings.encoder(options.encoding());
        this.index = new BlockIndexWriter(tuning.indexBlockMaxBytes());
        this.bloom = options.bloom() == BloomType.ROW
            ? new BloomFilterWriter(tuning.bloomErrorRate(), tuning.bloomChunkBytes()) : null;
        this.file = new FileOutputStream(path.toFile());
        this.out = new BufferedOutputStream(file, 256 * 1024);
    }

    /** A writer with default options but the compression: {@code Options.of(compression)}. */
    public StoreFileWriter(Path path, Compression compression) throws IOException {
        this(path, Options.of(compression));
    }

    /** Adds the next cell (strictly after the previous one). */
    public void append(KeyValue kv) throws IOException {
        boolean newRow = previous == null || CellComparator.compareRows(previous, kv) != 0;
        if (previous != null && CellComparator.INSTANCE.compare(previous, kv) >= 0) {
            throw new IllegalArgumentException("cells out of order: " + kv + " after " + previous);
        }
        if (newRow) {
            if (firstRow == null) {
                firstRow = kv.row();
            }
            rowCount++;
            if (bloom != null) {
                bloom.addRow(kv, sink); // hashed in place: no row copy per row
            }
        }
        if (encoder.cellCount() == 0) {
            blockFirstRow = kv.row();
        }
        encoder.append(kv);
        cellCount++;
        previous = kv;
        if (encoder.encodedSize() >= tuning.dataBlockSize()) {
            flushDataBlock();
        }
    }

    private void flushDataBlock() throws IOException {
        index.addDataBlock(writeBlock(BlockKind.DATA, encoder.finishBlock()), blockFirstRow);
    }

    private BlockLocation writeBlock(BlockKind kind, byte[] raw) throws IOException {
        int length = BlockFormat.writeFramed(out, kind, raw, options.compression());
        BlockLocation at = new BlockLocation(written, length);
        written += length;
        return at;
    }

    /**
     * Writes the last data block and bloom chunk, the index, the file info and the trailer, fsyncs and
     * closes the file.
     *
     * @param maxSequenceId the highest WAL sequence id of any cell in the file
     * @return the trailer written
     */
    public Trailer finish(long maxSequenceId) throws IOException {
        if (encoder.cellCount() > 0) {
            flushDataBlock();
        }
        byte[] chunkIndex = bloom == null ? new byte[0] : bloom.finish(sink);
        long dataSectionEnd = written;
        int blocks = index.dataBlockCount();
        BlockIndexWriter.Written idx = index.write(sink);
        byte[] empty = new byte[0];
        FileInfo info = new FileInfo(firstRow == null ? empty : firstRow, previous == null ? empty : previous.row(),
            bloom == null ? 0 : bloom.hashCount(), chunkIndex);
        BlockLocation infoAt = writeBlock(BlockKind.FILE_INFO, info.encode());
        Trailer trailer = new Trailer(idx.root().offset(), idx.root().onDiskSize(), idx.levels(), infoAt.offset(),
            infoAt.onDiskSize(), dataSectionEnd, blocks, cellCount, rowCount, maxSequenceId, options.compression(),
            options.encoding(), options.bloom());
        out.write(trailer.encode());
        out.flush();
        file.getChannel().force(true);
        finished = true;
        out.close();
        return trailer;
    }

    public Path path() {
        return path;
    }

    /** Closes without finishing (an abandoned file is not a valid store file). */
    @Override
    public void close() throws IOException {
        if (!finished) {
            out.close();
        }
    }
}
