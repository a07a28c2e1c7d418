package org.heaplab.rpc;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;

/**
 * HBase 2.x decoding: cells are views over the request buffer, no copy: a {@link ByteBufferKeyValue}
 * over a direct (pooled) buffer, a {@link KeyValue} over a heap one. The WAL writes them from there and
 * the memstore copies each once into its own storage.
 *
 * <p>Pitfalls: the views die with the request buffer; nothing may keep them past the call.
 */
public final class ZeroCopyCellDecoder implements CellDecoder {
    public static final ZeroCopyCellDecoder INSTANCE = new ZeroCopyCellDecoder();

    @Override
    public Cell decode(ByteBuffer body, int offset, int length) {
        if (body.hasArray()) {
            return new KeyValue(body.array(), body.arrayOffset() + offset, length);
        }
        return new ByteBufferKeyValue(body, offset, length);
    }

    @Override
    public String describe() {
        return "ZeroCopyCellDecoder (cells are views over the request buffer)";
    }
}
