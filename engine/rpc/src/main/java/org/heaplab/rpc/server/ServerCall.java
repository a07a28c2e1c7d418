package org.heaplab.rpc.server;

import java.util.concurrent.CompletableFuture;

/**
 * One call being answered: how an {@link RpcService} responds, at once from the handler or later from
 * any thread (a completion callback: the staged write path answers from its post-sync stage).
 *
 * <p>Contract: exactly one of {@link #reply} or {@link #fail}, once; later calls are ignored. The
 * request's buffer (and so every cell decoded over it) stays valid until the response is written and
 * every future given to {@link #holdRequestUntil} completed (normally or not), whichever is last.
 * Resources given to {@link #closeAfterResponse} are closed right after the response is written.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public interface ServerCall {
    /** Sends the OK response. */
    void reply(RpcService.Reply reply);

    /** Sends the error response for {@code t} (see {@link ErrorMapping}). */
    void fail(Throwable t);

    /**
     * Keeps the request buffer until {@code f} completes, even after the response (for example while
     * the WAL's consumer thread still reads the cells of an ASYNC_WAL put). Call before responding.
     */
    void holdRequestUntil(CompletableFuture<?> f);

    /**
     * Closes {@code resource} once this call's response (OK or error) has been written, or could not
     * be written because the connection is gone: exactly once, on every path. A read RPC registers its
     * ReadScope here before reading, so the cache blocks its cells point into are released only after
     * the bytes left (2.x zero copy). Registered after the answer, it is closed at once.
     */
    void closeAfterResponse(AutoCloseable resource);
}
