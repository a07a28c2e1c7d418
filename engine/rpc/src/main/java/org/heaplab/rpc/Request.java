package org.heaplab.rpc;

import java.util.List;
import org.heaplab.core.cell.KeyValue;

/**
 * A decoded request: the call id, the method, its params (decode with {@link ParamReader}) and its
 * cell block. The params and cells are views into the frame's byte[], which the request owns.
 */
public record Request(int callId, Method method, byte[] params, List<KeyValue> cells) {
    public ParamReader paramReader() {
        return new ParamReader(params, callId);
    }
}
