package org.heaplab.core.encoding;

import java.nio.ByteBuffer;
import org.heaplab.core.io.DataBlockEncoding;

/** Picks the encoder and seeker class of a data block encoding (chosen per column family). */
public final class Encodings {
    private Encodings() {
    }

    /** A new encoder for one store-file writer. */
    public static DataBlockEncoder encoder(DataBlockEncoding encoding) {
        return switch (encoding) {
            case NONE -> new NoneEncoder();
            case DIFF -> new DiffEncoder();
            case ROW_INDEX_V1 -> new RowIndexV1Encoder();
        };
    }

    /**
     * A seeker over one decoded block: {@code block}'s bytes from index 0 to its limit (heap or direct;
     * read with absolute gets only), positioned on the first cell.
     */
    public static BlockSeeker seeker(DataBlockEncoding encoding, ByteBuffer block) {
        return switch (encoding) {
            case NONE -> new NoneSeeker(block);
            case DIFF -> new DiffSeeker(block);
            case ROW_INDEX_V1 -> new RowIndexV1Seeker(block);
        };
    }
}
