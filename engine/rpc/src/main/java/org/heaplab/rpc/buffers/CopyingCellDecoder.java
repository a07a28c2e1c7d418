package org.heaplab.rpc.buffers;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.rpc.protocol.CellDecoder;

/**
 * HBase 1.x decoding: every cell is copied out of the request into a new heap byte[] of its own (one
 * more young-generation array per cell). A LATEST_TIMESTAMP is stamped into that copy, and the plain
 * memstore keeps the very array as its KeyValue (as HBase 1.x's KeyValueCodec copy does).
 */
public final class CopyingCellDecoder implements CellDecoder {
    public static final CopyingCellDecoder INSTANCE = new CopyingCellDecoder();

    @Override
    public Cell decode(ByteBuffer body, int offset, int length) {
        // BEGIN SOLUTION cell-decoders
        HeapCopies.request(length);
        return ByteBufferKeyValue.ownedCopyOf(body, offset, length);
        // END SOLUTION cell-decoders
        // STUB cell-decoders: throw new UnsupportedOperationException("not implemented: labs/03-offheap-write/README.md, Build it yourself (cell-decoders)");
    }

    @Override
    public String describe() {
        return "CopyingCellDecoder (each cell copied into its own heap KeyValue)";
    }
}
