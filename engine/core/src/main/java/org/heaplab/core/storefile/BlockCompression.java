package org.heaplab.core.storefile;

import java.io.IOException;
import java.util.Arrays;
import org.heaplab.core.io.Compression;
import org.xerial.snappy.Snappy;

/** Compresses and decompresses data-block payloads with a family's codec; codes are stable on disk. */
final class BlockCompression {
    private BlockCompression() {
    }

    /** The codec's code in the store-file trailer (never reorder: files on disk carry it). */
    static int code(Compression c) {
        return switch (c) {
            case NONE -> 0;
            case SNAPPY -> 1;
        };
    }

    static Compression of(int code) throws IOException {
        return switch (code) {
            case 0 -> Compression.NONE;
            case 1 -> Compression.SNAPPY;
            default -> throw new IOException("unknown compression code " + code);
        };
    }

    /** The on-disk payload of {@code length} raw bytes (NONE returns a copy of exactly that range). */
    static byte[] compress(Compression c, byte[] raw, int length) throws IOException {
        return switch (c) {
            case NONE -> Arrays.copyOf(raw, length);
            case SNAPPY -> {
                byte[] out = new byte[Snappy.maxCompressedLength(length)];
                int n = Snappy.compress(raw, 0, length, out, 0);
                yield Arrays.copyOf(out, n);
            }
        };
    }

    /** Decodes a payload back to exactly {@code uncompressedSize} bytes, or throws. */
    static byte[] decompress(Compression c, byte[] payload, int uncompressedSize) throws IOException {
        if (c == Compression.NONE) {
            if (payload.length != uncompressedSize) {
                throw new IOException("payload of " + payload.length + " bytes, header says " + uncompressedSize);
            }
            return payload;
        }
        byte[] out = new byte[uncompressedSize];
        int n = Snappy.uncompress(payload, 0, payload.length, out, 0);
        if (n != uncompressedSize) {
            throw new IOException("snappy produced " + n + " bytes, header says " + uncompressedSize);
        }
        return out;
    }
}
