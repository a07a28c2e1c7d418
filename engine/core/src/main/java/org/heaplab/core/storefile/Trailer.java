package org.heaplab.core.storefile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.io.StorageConstants;

/**
 * The fixed-size trailer at the end of a store file (every byte: {@link StoreFileWriter}). A reader
 * first reads the last 12 bytes (format version, magic), so any version's trailer is recognised and an
 * unknown one is rejected with a one-line error.
 *
 * <p>Format version history (readers reject versions they do not know):
 * <ul>
 *   <li>1: NONE encoding only, CRC32C per data block, NONE/SNAPPY, single-level index, no bloom.</li>
 *   <li>2: data block encodings (NONE, DIFF, ROW_INDEX_V1), a multi-level block index, a chunked row
 *       bloom filter, a kind byte in every block header and CRC32C on every block (data, index, bloom,
 *       file info), first/last row and row count.</li>
 * </ul>
 *
 * @param dataSectionEnd first byte after the data blocks and bloom chunks (index blocks follow)
 * @param indexLevels levels of the block index including the root (1: the root names data blocks)
 */
public record Trailer(long rootIndexOffset, int rootIndexSize, int indexLevels, long fileInfoOffset,
                      int fileInfoSize, long dataSectionEnd, int blockCount, long cellCount, long rowCount,
                      long maxSequenceId, Compression compression, DataBlockEncoding encoding, BloomType bloom) {
    public static final int VERSION = 2;
    /** Serialized size (see StoreFileWriter): 68 bytes of fields, crc, version, magic. */
    public static final int SIZE = 84;
    /** Version and magic: the last bytes of every store file of any version. */
    static final int TAIL_SIZE = 12;

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        b.putLong(rootIndexOffset).putInt(rootIndexSize).putInt(indexLevels)
            .putLong(fileInfoOffset).putInt(fileInfoSize).putLong(dataSectionEnd).putInt(blockCount)
            .putLong(cellCount).putLong(rowCount).putLong(maxSequenceId)
            .put((byte) BlockCompression.code(compression)).put((byte) encoding.id).put(bloomCode(bloom)).put((byte) 0);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue()).putInt(VERSION).putLong(StorageConstants.STORE_FILE_MAGIC);
        return b.array();
    }

    /** Stable on-disk codes of the bloom types. */
    static byte bloomCode(BloomType t) {
        return switch (t) {
            case NONE -> 0;
            case ROW -> 1;
        };
    }

    /**
     * Checks the last {@link #TAIL_SIZE} bytes of a file: the magic, then the format version.
     *
     * @throws IOException one line naming the file (and the version, when it is not this engine's)
     */
    static void checkTail(byte[] tail, String where) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(tail);
        if (b.getLong(4) != StorageConstants.STORE_FILE_MAGIC) {
            throw new IOException("store file " + where + ": bad trailer magic (not a store file or truncated)");
        }
        int version = b.getInt(0);
        if (version != VERSION) {
            throw new IOException("store file " + where + " has format version " + version
                + "; this engine reads version " + VERSION + " only (rewrite the data with this engine)");
        }
    }

    /** Decodes a whole trailer (after {@link #checkTail}); {@code where} names the file in errors. */
    static Trailer decode(byte[] bytes, String where) throws IOException {
        checkTail(Arrays.copyOfRange(bytes, SIZE - TAIL_SIZE, SIZE), where);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, SIZE - 16);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if ((int) crc.getValue() != b.getInt(SIZE - 16)) {
            throw new IOException("store file " + where + ": trailer fails its checksum");
        }
        long rootOffset = b.getLong();
        int rootSize = b.getInt();
        int levels = b.getInt();
        long infoOffset = b.getLong();
        int infoSize = b.getInt();
        long dataEnd = b.getLong();
        int blocks = b.getInt();
        long cells = b.getLong();
        long rows = b.getLong();
        long maxSeq = b.getLong();
        Compression compression = BlockCompression.of(b.get());
        int encodingId = b.get();
        DataBlockEncoding encoding = DataBlockEncoding.ofId(encodingId);
        if (encoding == null) {
            throw new IOException("store file " + where + ": unknown data block encoding id " + encodingId);
        }
        byte bloomCode = b.get();
        BloomType bloom = switch (bloomCode) {
            case 0 -> BloomType.NONE;
            case 1 -> BloomType.ROW;
            default -> throw new IOException("store file " + where + ": unknown bloom type code " + bloomCode);
        };
        if (levels < 1 || levels > 64) { // 64 levels of at least 2 entries: more blocks than a file can have
            throw new IOException("store file " + where + ": trailer says " + levels + " index levels");
        }
        return new Trailer(rootOffset, rootSize, levels, infoOffset, infoSize, dataEnd, blocks, cells, rows, maxSeq,
            compression, encoding, bloom);
    }
}
