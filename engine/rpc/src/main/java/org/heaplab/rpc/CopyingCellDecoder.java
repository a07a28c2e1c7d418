package org.heaplab.rpc;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * HBase 1.x decoding: every cell is copied out of the request into a new heap byte[] of its own and
 * wrapped in a KeyValue (one more young-generation object pair per cell; the memstore then keeps
 * exactly these).
 */
public final class CopyingCellDecoder implements CellDecoder {
    public static final CopyingCellDecoder INSTANCE = new CopyingCellDecoder();

    @Override
    public Cell decode(ByteBuffer body, int offset, int length) {
        byte[] b = new byte[length];
        body.get(offset, b, 0, length);
        return new KeyValue(b, 0, length);
    }

    @Override
    public String describe() {
        return "CopyingCellDecoder (each cell copied into its own heap KeyValue)";
    }
}
