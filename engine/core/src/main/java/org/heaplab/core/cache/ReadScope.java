package org.heaplab.core.cache;

import java.util.ArrayList;
import java.util.List;

/**
 * The cache blocks one read (one RPC: a get, a multi-get, one batch of a scan) holds while cells that
 * point into them are still in use. The 2.x zero-copy path adds every cached block it serves cells from;
 * the server closes the scope once the response is written, which releases them. The 1.x path holds
 * nothing here (it copies onto the heap and releases at once).
 *
 * <p>Thread safety: not thread safe; one read, one thread at a time (it may be handed from a handler to
 * the thread that writes the response).
 */
public final class ReadScope implements AutoCloseable {
    private final List<Block> held = new ArrayList<>(4);
    private boolean closed;

    /** Keeps {@code block}'s reference until {@link #close}. */
    public void hold(Block block) {
        if (closed) {
            block.release();
            throw new IllegalStateException("read scope already closed");
        }
        held.add(block);
    }

    public int heldBlocks() {
        return held.size();
    }

    /** Releases every held block; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Block b : held) {
            b.release();
        }
        held.clear();
    }
}
