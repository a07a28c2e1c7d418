package org.heaplab.client;

import java.util.Arrays;
import java.util.List;
import org.heaplab.core.cell.KeyValue;

/** The cells a get or a scan returned for one row (newest version per column, in cell order). */
public final class Result {
    private final List<KeyValue> cells;

    public Result(List<KeyValue> cells) {
        this.cells = List.copyOf(cells);
    }

    public List<KeyValue> cells() {
        return cells;
    }

    public boolean isEmpty() {
        return cells.isEmpty();
    }

    /** The row of the cells, or null for an empty result. */
    public byte[] getRow() {
        return cells.isEmpty() ? null : cells.get(0).row();
    }

    /** The value of family:qualifier, or null when the row has no such column. */
    public byte[] getValue(byte[] family, byte[] qualifier) {
        for (KeyValue kv : cells) {
            byte[] b = kv.getBuffer();
            if (Arrays.equals(b, kv.familyOffset(), kv.familyOffset() + kv.familyLength(), family, 0, family.length)
                && Arrays.equals(b, kv.qualifierOffset(), kv.qualifierOffset() + kv.qualifierLength(),
                    qualifier, 0, qualifier.length)) {
                return kv.value();
            }
        }
        return null;
    }
}
