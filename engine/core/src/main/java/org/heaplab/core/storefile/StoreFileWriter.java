package org.heaplab.core.storefile;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.StorageConstants;

/**
 * Writes an immutable, sorted store file (the engine's HFile).
 *
 * <pre>
 * Store file, big-endian:
 *   file       := dataBlock* blockIndex trailer
 *   dataBlock  := int32 onDiskPayloadSize
 *                 int32 uncompressedSize
 *                 int32 crc32c            (CRC32C of the two ints above and the payload)
 *                 payload                 (cells, compressed with the file's codec; NONE: as is)
 *     cells    := KeyValue*               (NONE encoding: whole KeyValues back to back, in cell order;
 *                                          a block closes once it holds >= DATA_BLOCK_SIZE (64 KB) bytes)
 *   blockIndex := int32 blockCount
 *                 entry{blockCount}
 *                 int32 lastKeyLength, lastKey
 *                 int32 crc32c            (CRC32C of every index byte before it)
 *     entry    := int64 blockOffset, int32 blockOnDiskSize (header + payload),
 *                 int32 firstKeyLength, firstKey
 *     key      := the key part of a KeyValue (short rowLength, row, byte familyLength, family,
 *                 qualifier, long timestamp, byte type)
 *   trailer    := int64 indexOffset, int32 indexSize, int32 blockCount, int64 cellCount,
 *                 int64 maxSequenceId, int32 compressionCode (0 NONE, 1 SNAPPY),
 *                 int32 crc32c (of the 36 bytes before it), int32 formatVersion (see Trailer),
 *                 int64 magic (StorageConstants.STORE_FILE_MAGIC)     -- Trailer.SIZE = 52 bytes
 * </pre>
 *
 * <p>Invariants: cells arrive in strictly increasing {@link CellComparator} order; every block holds at
 * least one cell; the file is fsynced by {@link #finish} and only then may be renamed into a store
 * (callers write under a temporary name and publish with AtomicFiles).
 *
 * <p>Thread safety: not thread safe; one writer per file.
 */
public final class StoreFileWriter implements Closeable {
    private final Path path;
    private final Compression compression;
    private final FileOutputStream file;
    private final OutputStream out;
    private final BlockIndex.Builder index = new BlockIndex.Builder();
    private byte[] block = new byte[StorageConstants.DATA_BLOCK_SIZE * 2];
    private int blockLength;
    private byte[] blockFirstKey;
    private KeyValue previous;
    private long written;
    private long cellCount;
    private boolean finished;

    /**
     * What a family asks of its store files.
     * TODO(issue 4, store-file helper): encoding and bloom are not written yet.
     */
    public record Options(Compression compression, org.heaplab.core.io.DataBlockEncoding encoding,
                          org.heaplab.core.io.BloomType bloom) {
        public static Options of(Compression compression) {
            return new Options(compression, org.heaplab.core.io.DataBlockEncoding.NONE, org.heaplab.core.io.BloomType.ROW);
        }
    }

    public StoreFileWriter(Path path, Options options) throws IOException {
        this(path, options.compression());
    }

    public StoreFileWriter(Path path, Compression compression) throws IOException {
        this.path = path;
        this.compression = compression;
        this.file = new FileOutputStream(path.toFile());
        this.out = new BufferedOutputStream(file, 256 * 1024);
    }

    /** Adds the next cell (strictly after the previous one). */
    public void append(KeyValue kv) throws IOException {
        if (previous != null && CellComparator.INSTANCE.compare(previous, kv) >= 0) {
            throw new IllegalArgumentException("cells out of order: " + kv + " after " + previous);
        }
        if (blockLength == 0) {
            blockFirstKey = key(kv);
        }
        if (blockLength + kv.getLength() > block.length) {
            block = Arrays.copyOf(block, Math.max(block.length * 2, blockLength + kv.getLength()));
        }
        System.arraycopy(kv.getBuffer(), kv.getOffset(), block, blockLength, kv.getLength());
        blockLength += kv.getLength();
        cellCount++;
        previous = kv;
        if (blockLength >= StorageConstants.DATA_BLOCK_SIZE) {
            flushBlock();
        }
    }

    private static byte[] key(KeyValue kv) {
        return Arrays.copyOfRange(kv.getBuffer(), kv.keyOffset(), kv.keyOffset() + kv.keyLength());
    }

    private void flushBlock() throws IOException {
        byte[] payload = BlockCompression.compress(compression, block, blockLength);
        ByteBuffer header = ByteBuffer.allocate(StorageConstants.BLOCK_HEADER_SIZE);
        header.putInt(payload.length).putInt(blockLength);
        CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, 8);
        crc.update(payload);
        header.putInt((int) crc.getValue());
        int onDisk = StorageConstants.BLOCK_HEADER_SIZE + payload.length;
        index.add(written, onDisk, blockFirstKey);
        out.write(header.array());
        out.write(payload);
        written += onDisk;
        blockLength = 0;
    }

    /**
     * Writes the last block, the index and the trailer, fsyncs and closes the file.
     *
     * @param maxSequenceId the highest WAL sequence id of any cell in the file
     * @return the trailer written
     */
    public Trailer finish(long maxSequenceId) throws IOException {
        if (blockLength > 0) {
            flushBlock();
        }
        BlockIndex built = index.build(previous == null ? null : key(previous));
        byte[] indexBytes = built.encode();
        long indexOffset = written;
        out.write(indexBytes);
        Trailer trailer = new Trailer(indexOffset, indexBytes.length, built.blockCount(), cellCount, maxSequenceId,
            compression);
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
