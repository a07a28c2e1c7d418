package org.heaplab.rpc.protocol;

import java.nio.ByteBuffer;
import org.heaplab.core.cell.Cell;

/**
 * How a request's cells are made from its cell block: the switch between HBase 1.x's copy of every
 * cell into its own heap KeyValue ({@link org.heaplab.rpc.buffers.CopyingCellDecoder}) and 2.x's views over
 * the request buffer ({@link org.heaplab.rpc.buffers.ZeroCopyCellDecoder}). Chosen once at start-up
 * ({@link org.heaplab.rpc.server.RpcMemory#fromConf}).
 *
 * <p>Here, in the protocol, because {@link FrameReader} cuts the cells out of a frame through it; the two
 * implementations live with the request buffers they read (org.heaplab.rpc.buffers).
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
