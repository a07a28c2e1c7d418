package org.heaplab.rpc.buffers;

import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * The response-path switch (labs 04 and 06): where an OK response's params and cell block are encoded
 * before the socket write. Chosen once at start-up with the request buffers
 * ({@link org.heaplab.rpc.server.RpcMemory#fromConf}), by the same hbase.server.allocator.pool.enabled as in
 * HBase (one ByteBuffAllocator for both: the pooled encoder writes into the {@link DirectBufferPool}):
 * <ul>
 *   <li>{@link HeapResponseEncoder} (HBase 1.x): the whole frame in a new heap byte[]; cells served from
 *       off-heap cache memory are copied onto the heap here (garbage per response).</li>
 *   <li>{@link PooledDirectResponseEncoder} (HBase 2.x): the frame in pooled direct buffers written with
 *       one gathering write and returned to the pool; cells go from cache memory to direct memory.</li>
 * </ul>
 * The server closes the call's read scope (releasing cache block references) only after the frame is
 * written, so a zero-copy cell is never read after its block could be freed.
 *
 * <p>Thread safety: implementations are used by every handler at once.
 */
public interface ResponseEncoder {
    /** The OK frame of call {@code callId}. The caller writes it and then calls {@link ResponseFrame#release}. */
    ResponseFrame encode(int callId, byte[] params, List<? extends Cell> cells);

    /** One line for the start-up log. */
    String describe();
}
