package org.heaplab.rpc.buffers;

import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.rpc.protocol.FrameWriter;

/** HBase 1.x responses: the whole frame, cell block included, in a fresh heap byte[] ({@link FrameWriter#ok}). */
public final class HeapResponseEncoder implements ResponseEncoder {
    public static final HeapResponseEncoder INSTANCE = new HeapResponseEncoder();

    @Override
    public ResponseFrame encode(int callId, byte[] params, List<? extends Cell> cells) {
        return ResponseFrame.onHeap(FrameWriter.ok(callId, params, cells));
    }

    @Override
    public String describe() {
        return "HeapResponseEncoder (each response in a fresh heap byte[])";
    }
}
