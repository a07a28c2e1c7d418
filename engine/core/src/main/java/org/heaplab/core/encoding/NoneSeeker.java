package org.heaplab.core.encoding;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.Cell;

/** Reads a NONE block (see {@link NoneEncoder}): a linear walk, one KeyValue at a time; cells are views. */
public final class NoneSeeker implements BlockSeeker {
    private final ByteBuffer block;
    private final int end;
    private int pos;

    NoneSeeker(ByteBuffer block) {
        this.block = block;
        this.end = block.limit();
    }

    @Override
    public boolean seekToRow(byte[] row) {
        pos = 0;
        while (pos < end && FlatCells.compareRow(block, pos, row) < 0) {
            pos += FlatCells.length(block, pos);
        }
        return pos < end;
    }

    @Override
    public void rewind() {
        pos = 0;
    }

    @Override
    public Cell current() {
        return pos < end ? FlatCells.view(block, pos, FlatCells.length(block, pos)) : null;
    }

    @Override
    public int compareCurrentRow(byte[] row) {
        return FlatCells.compareRow(block, pos, row);
    }

    @Override
    public boolean next() {
        if (pos < end) {
            pos += FlatCells.length(block, pos);
        }
        return pos < end;
    }
}
