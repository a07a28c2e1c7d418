package org.heaplab.rpc.protocol;

import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * A decoded request: the call id, the method, its params (decode with {@link ParamReader}) and its
 * cell block. The params are the request's own copy. The cells are what the server's {@link CellDecoder}
 * made of the cell block: copies (1.x) or views over the request buffer (2.x), which is returned to its
 * pool once the response is written, so a service must not keep a cell beyond
 * {@link org.heaplab.rpc.server.RpcService#call}.
 */
public record Request(int callId, Method method, byte[] params, List<Cell> cells) {
    public ParamReader paramReader() {
        return new ParamReader(params, callId);
    }
}
