package org.heaplab.core.storefile;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;
import org.heaplab.core.io.Compression;

/**
 * The frame every store-file block is written in (data, index, bloom, file info alike):
 *
 * <pre>
 *   block := byte  kind                 (BlockKind code)
 *            int32 onDiskPayloadSize
 *            int32 uncompressedSize
 *            int32 crc32c               (CRC32C of the 9 header bytes above and the payload)
 *            payload                    (the block's bytes compressed with the file's codec; NONE: as is)
 * </pre>
 *
 * A block is verified before anything else is done with it: a bad checksum, a wrong kind or a payload
 * that does not decompress to its size is an IOException naming the file and the block's offset.
 */
final class BlockFormat {
    static final int HEADER_SIZE = 13;

    private BlockFormat() {
    }

    /**
     * Writes the block whose raw bytes are {@code raw} (header + payload compressed with the file's codec)
     * to {@code out}, without building it in one array first: the header from a small array, then the
     * payload as it is (a flush writes every data block through here: a framed copy of each would double
     * the flush's garbage). Returns the bytes written.
     */
    static int writeFramed(OutputStream out, BlockKind kind, byte[] raw, Compression compression)
        throws IOException {
        byte[] payload = compression == Compression.NONE ? raw : BlockCompression.compress(compression, raw, raw.length);
        byte[] header = new byte[HEADER_SIZE];
        ByteBuffer b = ByteBuffer.wrap(header);
        b.put(kind.code).putInt(payload.length).putInt(raw.length);
        CRC32C crc = new CRC32C();
        crc.update(header, 0, 9);
        crc.update(payload);
        b.putInt((int) crc.getValue());
        out.write(header);
        out.write(payload);
        return HEADER_SIZE + payload.length;
    }

    /**
     * Verifies a block read from disk and returns its raw (decompressed) bytes.
     *
     * @param where the file, for error messages
     * @param offset the block's offset in the file, for error messages
     */
    static byte[] unframe(byte[] onDisk, BlockKind expected, Compression compression, String where, long offset)
        throws IOException {
        String what = "store file " + where + ": " + expected.name().toLowerCase(Locale.ROOT)
            + " block at offset " + offset;
        if (onDisk.length < HEADER_SIZE) {
            throw new IOException(what + " is shorter than a block header");
        }
        ByteBuffer h = ByteBuffer.wrap(onDisk);
        byte kind = h.get();
        int payloadSize = h.getInt();
        int rawSize = h.getInt();
        int crc = h.getInt();
        CRC32C c = new CRC32C();
        c.update(onDisk, 0, 9);
        c.update(onDisk, HEADER_SIZE, onDisk.length - HEADER_SIZE);
        if ((int) c.getValue() != crc || payloadSize != onDisk.length - HEADER_SIZE) {
            throw new IOException(what + " fails its checksum");
        }
        if (kind != expected.code) {
            BlockKind actual = BlockKind.ofCode(kind);
            throw new IOException(what + " is a " + (actual == null ? "kind " + kind : actual.name()) + " block");
        }
        byte[] payload = Arrays.copyOfRange(onDisk, HEADER_SIZE, onDisk.length);
        try {
            return BlockCompression.decompress(compression, payload, rawSize);
        } catch (IOException e) {
            throw new IOException(what + " does not decompress: " + e.getMessage(), e);
        }
    }
}
