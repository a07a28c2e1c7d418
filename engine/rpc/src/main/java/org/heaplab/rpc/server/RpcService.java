package org.heaplab.rpc.server;

import java.io.IOException;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;

/**
 * What a server does with a decoded request: the region server's implementation runs it against
 * the storage engine; tests plug in fakes. Called concurrently by every handler thread.
 */
public interface RpcService {

    /**
     * Runs one call.
     *
     * @return the OK response's params and cells
     * @throws IOException or a RuntimeException, turned into an error response by the server
     *     ({@link ErrorMapping})
     */
    Reply call(Request request) throws IOException;

    /**
     * Runs one call and answers through {@code call}, now or later from any thread. The default runs
     * {@link #call(Request)} and answers at once; a service overrides it to answer from a completion
     * callback or to keep the request buffer past the response ({@link ServerCall#holdRequestUntil}).
     * Must not throw: report failures through {@link ServerCall#fail}.
     */
    default void call(Request request, ServerCall call) {
        Reply reply;
        try {
            reply = call(request);
        } catch (Throwable t) {
            call.fail(t);
            return;
        }
        call.reply(reply);
    }

    /**
     * The params and cells of an OK response. The cells are encoded into the response frame before the
     * request's buffer is released and before anything registered with
     * {@link ServerCall#closeAfterResponse} is closed, so they may be views over the request (an echo),
     * into cache blocks a read scope holds (2.x zero copy), or anything else.
     */
    record Reply(byte[] params, List<? extends Cell> cells) {
        public static final Reply EMPTY = new Reply(new byte[0], List.of());

        public static Reply of(ParamWriter params) {
            return new Reply(params.toByteArray(), List.of());
        }
    }
}
