package org.heaplab.core.encoding;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.DataBlockEncoding;

/**
 * DIFF (HBase-like, our own byte layout): each key is stored as the bytes it does not share with the
 * previous cell's key; the family is written once per block; lengths and the type are left out when
 * equal to the previous cell's; the timestamp is stored in as few bytes as needed, either as it is or
 * as the difference with the previous cell's, whichever is shorter.
 *
 * <pre>
 *   block   := byte familyLength, family       (once: every cell of a store file has the same family)
 *              cell*
 *   cell    := byte flags
 *              [vint keyLength]                unless flags &amp; SAME_KEY_LENGTH (0x01)
 *              [vint valueLength]              unless flags &amp; SAME_VALUE_LENGTH (0x02)
 *              vint shared                     bytes shared with the previous cell's short key
 *              suffix                          the short key's remaining bytes
 *              timestamp                       ((flags &gt;&gt; 4) &amp; 7) + 1 bytes, big-endian: the timestamp,
 *                                              or with TIMESTAMP_IS_DIFF (0x08) |ts - previous ts|,
 *                                              negated when TIMESTAMP_DIFF_NEGATIVE (0x80)
 *              [byte type]                     unless flags &amp; SAME_TYPE (0x04)
 *              value
 *   short key := short rowLength, row, qualifier  (the key without family, timestamp and type; its
 *                                              length is keyLength - familyLength - 10)
 *   vint    := 7-bit groups, low group first, high bit set on every byte but the last
 * </pre>
 *
 * Each key is rebuilt from the previous one, so a seek ({@link DiffSeeker}) decodes from the block's
 * first cell, and every cell it returns is a new heap KeyValue: smaller blocks, more CPU and garbage.
 */
public final class DiffEncoder implements DataBlockEncoder {
    static final int SAME_KEY_LENGTH = 0x01;
    static final int SAME_VALUE_LENGTH = 0x02;
    static final int SAME_TYPE = 0x04;
    static final int TIMESTAMP_IS_DIFF = 0x08;
    static final int TIMESTAMP_LENGTH_SHIFT = 4;
    static final int TIMESTAMP_DIFF_NEGATIVE = 0x80;

    private final GrowableBytes block = new GrowableBytes();
    private int cells;
    private byte[] family;
    private byte[] previousKey = new byte[256];
    private int previousKeyLength;
    private byte[] key = new byte[256];
    private int previousKeyLengthField;
    private int previousValueLength;
    private long previousTimestamp;
    private byte previousType;

    @Override
    public DataBlockEncoding encoding() {
        return DataBlockEncoding.DIFF;
    }

    @Override
    public void append(KeyValue cell) {
        byte[] buf = cell.getBuffer();
        if (cells == 0) {
            family = cell.family();
            block.writeByte(family.length);
            block.write(family, 0, family.length);
        } else if (!Arrays.equals(buf, cell.familyOffset(), cell.familyOffset() + cell.familyLength(), family, 0,
            family.length)) {
            throw new IllegalArgumentException("a DIFF block holds one family; got " + cell + " after family "
                + new String(family, StandardCharsets.ISO_8859_1));
        }
        int shortKeyLength = shortKey(cell);
        int shared = cells == 0 ? 0 : Arrays.mismatch(key, 0, shortKeyLength, previousKey, 0, previousKeyLength);
        if (shared < 0) {
            shared = shortKeyLength; // equal short keys (versions of one column)
        }
        int keyLength = cell.keyLength();
        int valueLength = cell.valueLength();
        long ts = cell.timestamp();
        byte type = cell.typeByte();

        int flags = 0;
        if (cells > 0 && keyLength == previousKeyLengthField) {
            flags |= SAME_KEY_LENGTH;
        }
        if (cells > 0 && valueLength == previousValueLength) {
            flags |= SAME_VALUE_LENGTH;
        }
        if (cells > 0 && type == previousType) {
            flags |= SAME_TYPE;
        }
        long tsField = ts;
        int tsBytes = byteCount(ts);
        if (cells > 0 && ts >= 0 && previousTimestamp >= 0) {
            long diff = ts - previousTimestamp;
            int diffBytes = byteCount(Math.abs(diff));
            if (diffBytes < tsBytes) {
                flags |= TIMESTAMP_IS_DIFF;
                if (diff < 0) {
                    flags |= TIMESTAMP_DIFF_NEGATIVE;
                }
                tsField = Math.abs(diff);
                tsBytes = diffBytes;
            }
        }
        flags |= (tsBytes - 1) << TIMESTAMP_LENGTH_SHIFT;

        block.writeByte(flags);
        if ((flags & SAME_KEY_LENGTH) == 0) {
            block.writeVInt(keyLength);
        }
        if ((flags & SAME_VALUE_LENGTH) == 0) {
            block.writeVInt(valueLength);
        }
        block.writeVInt(shared);
        block.write(key, shared, shortKeyLength - shared);
        block.writeLongBytes(tsField, tsBytes);
        if ((flags & SAME_TYPE) == 0) {
            block.writeByte(type);
        }
        block.write(buf, cell.valueOffset(), valueLength);

        byte[] swap = previousKey;
        previousKey = key;
        key = swap;
        previousKeyLength = shortKeyLength;
        previousKeyLengthField = keyLength;
        previousValueLength = valueLength;
        previousTimestamp = ts;
        previousType = type;
        cells++;
    }

    /** Copies the cell's short key (row length, row, qualifier) into {@link #key}; returns its length. */
    private int shortKey(KeyValue cell) {
        int rowPart = 2 + cell.rowLength();
        int qualifierLength = cell.qualifierLength();
        int n = rowPart + qualifierLength;
        if (key.length < n) {
            key = new byte[Math.max(n, key.length * 2)];
        }
        System.arraycopy(cell.getBuffer(), cell.keyOffset(), key, 0, rowPart);
        System.arraycopy(cell.getBuffer(), cell.qualifierOffset(), key, rowPart, qualifierLength);
        return n;
    }

    /** Bytes needed for {@code v} read as unsigned (1 to 8; negative values need 8). */
    static int byteCount(long v) {
        return v == 0 ? 1 : (64 - Long.numberOfLeadingZeros(v) + 7) / 8;
    }

    @Override
    public int encodedSize() {
        return block.length();
    }

    @Override
    public int cellCount() {
        return cells;
    }

    @Override
    public byte[] finishBlock() {
        byte[] out = block.toByteArray();
        block.reset();
        cells = 0;
        previousKeyLength = 0;
        return out;
    }
}
