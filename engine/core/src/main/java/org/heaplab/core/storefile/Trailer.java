package org.heaplab.core.storefile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.StorageConstants;

/**
 * The fixed-size trailer at the end of a store file (layout in {@link StoreFileWriter}).
 *
 * <p>Format version history (one line per version; readers reject versions they do not know):
 * <ul>
 *   <li>1: NONE data block encoding, CRC32C per block, NONE/SNAPPY block compression, single-level
 *       block index with the file's last key, cell count and max sequence id.</li>
 * </ul>
 */
public record Trailer(long indexOffset, int indexSize, int blockCount, long cellCount, long maxSequenceId,
                      Compression compression) {
    public static final int VERSION = 1;
    /** Serialized size: 8 + 4 + 4 + 8 + 8 + 4 (compression) + 4 (crc) + 4 (version) + 8 (magic). */
    public static final int SIZE = 52;

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        b.putLong(indexOffset).putInt(indexSize).putInt(blockCount).putLong(cellCount).putLong(maxSequenceId)
            .putInt(BlockCompression.code(compression));
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue()).putInt(VERSION).putLong(StorageConstants.STORE_FILE_MAGIC);
        return b.array();
    }

    /** Decodes a trailer; {@code where} names the file in error messages. */
    static Trailer decode(byte[] bytes, String where) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.getLong(SIZE - 8) != StorageConstants.STORE_FILE_MAGIC) {
            throw new IOException("store file " + where + ": bad trailer magic (not a store file or truncated)");
        }
        int version = b.getInt(SIZE - 12);
        if (version != VERSION) {
            throw new IOException("store file " + where + ": unsupported format version " + version);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, SIZE - 16);
        if ((int) crc.getValue() != b.getInt(SIZE - 16)) {
            throw new IOException("store file " + where + ": trailer fails its checksum");
        }
        return new Trailer(b.getLong(), b.getInt(), b.getInt(), b.getLong(), b.getLong(),
            BlockCompression.of(b.getInt()));
    }
}
