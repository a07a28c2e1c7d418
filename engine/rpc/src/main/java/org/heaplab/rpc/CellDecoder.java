package org.heaplab.rpc;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.Cell;

/**
 * How a request's cells are made from its cell block: the switch between HBase 1.x's copy of every
 * cell into its own heap KeyValue ({@link CopyingCellDecoder}) and 2.x's views over the request buffer
 * ({@link ZeroCopyCellDecoder}). Chosen once at start-up ({@link RequestBufferAllocators#cellDecoder}).
 *
 * <p>Ownership: a decoded cell is valid until the request buffer is released (zero-copy) or forever
 * (copying); services must treat it as valid only during the call.
 *
 * <p>Thread safety: implementations are stateless.
 */
public interface CellDecoder {
    /** The cell of {@code length} bytes at absolute index {@code offset} of {@code body} (already bounds-checked). */
    Cell decode(ByteBuffer body, int offset, int length);

    String describe();
}
