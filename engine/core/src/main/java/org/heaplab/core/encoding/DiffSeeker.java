package org.heaplab.core.encoding;

import static org.heaplab.core.encoding.DiffEncoder.SAME_KEY_LENGTH;
import static org.heaplab.core.encoding.DiffEncoder.SAME_TYPE;
import static org.heaplab.core.encoding.DiffEncoder.SAME_VALUE_LENGTH;
import static org.heaplab.core.encoding.DiffEncoder.TIMESTAMP_DIFF_NEGATIVE;
import static org.heaplab.core.encoding.DiffEncoder.TIMESTAMP_IS_DIFF;
import static org.heaplab.core.encoding.DiffEncoder.TIMESTAMP_LENGTH_SHIFT;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * Reads a DIFF block (see {@link DiffEncoder}): every key is rebuilt from the previous one, so a seek
 * decodes sequentially from the first cell (about half the block per random get). Row comparisons use
 * the rebuilt key in a reused array; {@link #current} builds a new heap KeyValue (key and value copied).
 */
public final class DiffSeeker implements BlockSeeker {
    private final ByteBuffer block;
    private final int end;
    private final int familyLength;
    /** Index of the family bytes in the block header. */
    private final int familyOffset;
    private final int firstCell;

    /** Where the next cell's encoding starts. */
    private int nextPos;
    private boolean exhausted;
    /** The current cell's short key: short rowLength, row, qualifier. */
    private byte[] key = new byte[256];
    private int shortKeyLength;
    private int keyLength;
    private int valueLength;
    private int valueOffset;
    private long timestamp;
    private byte type;
    private int decoded;
    private KeyValue currentCell;

    DiffSeeker(ByteBuffer block) {
        this.block = block;
        this.end = block.limit();
        this.familyLength = block.get(0);
        this.familyOffset = 1;
        this.firstCell = 1 + familyLength;
        rewind();
    }

    @Override
    public void rewind() {
        nextPos = firstCell;
        decoded = 0;
        exhausted = false;
        decodeNext();
    }

    @Override
    public boolean seekToRow(byte[] row) {
        rewind();
        while (!exhausted && compareCurrentRow(row) < 0) {
            decodeNext();
        }
        return !exhausted;
    }

    @Override
    public int compareCurrentRow(byte[] row) {
        int rowLength = ((key[0] & 0xff) << 8) | (key[1] & 0xff);
        return Arrays.compareUnsigned(key, 2, 2 + rowLength, row, 0, row.length);
    }

    @Override
    public boolean next() {
        if (!exhausted) {
            decodeNext();
        }
        return !exhausted;
    }

    private void decodeNext() {
        currentCell = null;
        if (nextPos >= end) {
            exhausted = true;
            return;
        }
        int p = nextPos;
        int flags = block.get(p++) & 0xff;
        if ((flags & SAME_KEY_LENGTH) == 0 || decoded == 0) {
            long v = readVInt(p);
            keyLength = (int) v;
            p = (int) (v >>> 32);
        }
        if ((flags & SAME_VALUE_LENGTH) == 0 || decoded == 0) {
            long v = readVInt(p);
            valueLength = (int) v;
            p = (int) (v >>> 32);
        }
        long v = readVInt(p);
        int shared = (int) v;
        p = (int) (v >>> 32);
        int newLength = keyLength - familyLength - 10;
        if (key.length < newLength) {
            key = Arrays.copyOf(key, Math.max(newLength, key.length * 2));
        }
        block.get(p, key, shared, newLength - shared);
        p += newLength - shared;
        shortKeyLength = newLength;

        int tsBytes = ((flags >>> TIMESTAMP_LENGTH_SHIFT) & 7) + 1;
        long ts = 0;
        for (int i = 0; i < tsBytes; i++) {
            ts = (ts << 8) | (block.get(p++) & 0xff);
        }
        if ((flags & TIMESTAMP_IS_DIFF) != 0) {
            ts = (flags & TIMESTAMP_DIFF_NEGATIVE) != 0 ? timestamp - ts : timestamp + ts;
        }
        timestamp = ts;
        if ((flags & SAME_TYPE) == 0 || decoded == 0) {
            type = block.get(p++);
        }
        valueOffset = p;
        nextPos = p + valueLength;
        decoded++;
    }

    /** A varint at {@code p}: the value in the low 32 bits, the position after it in the high 32 bits. */
    private long readVInt(int p) {
        int value = 0;
        int shift = 0;
        while (true) {
            int b = block.get(p++);
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return ((long) p << 32) | (value & 0xffffffffL);
            }
            shift += 7;
        }
    }

    @Override
    public Cell current() {
        if (exhausted) {
            return null;
        }
        if (currentCell == null) {
            currentCell = materialize();
        }
        return currentCell;
    }

    /** The current cell as a KeyValue in a new array (the short key, family, timestamp, type and value). */
    private KeyValue materialize() {
        int rowPart = 2 + (((key[0] & 0xff) << 8) | (key[1] & 0xff));
        byte[] out = new byte[KeyValue.ROW_OFFSET + keyLength + valueLength];
        ByteBuffer b = ByteBuffer.wrap(out);
        b.putInt(keyLength).putInt(valueLength);
        b.put(key, 0, rowPart);
        b.put((byte) familyLength);
        b.put(b.position(), block, familyOffset, familyLength);
        b.position(b.position() + familyLength);
        b.put(key, rowPart, shortKeyLength - rowPart);
        b.putLong(timestamp).put(type);
        b.put(b.position(), block, valueOffset, valueLength);
        return new KeyValue(out, 0, out.length);
    }
}
