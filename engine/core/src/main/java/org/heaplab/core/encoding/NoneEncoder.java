package org.heaplab.core.encoding;

import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.DataBlockEncoding;

/**
 * NONE: whole KeyValues back to back, in cell order, nothing else.
 *
 * <pre>
 *   block := KeyValue*        (int keyLength, int valueLength, key, value: see KeyValue)
 * </pre>
 *
 * A seek ({@link NoneSeeker}) steps from the first cell, one length read per cell.
 */
public final class NoneEncoder implements DataBlockEncoder {
    private final GrowableBytes block = new GrowableBytes();
    private int cells;

    @Override
    public DataBlockEncoding encoding() {
        return DataBlockEncoding.NONE;
    }

    @Override
    public void append(KeyValue cell) {
        block.write(cell.getBuffer(), cell.getOffset(), cell.getLength());
        cells++;
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
        return out;
    }
}
