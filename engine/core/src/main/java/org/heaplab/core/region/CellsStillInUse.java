package org.heaplab.core.region;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.heaplab.core.util.Futures;

/**
 * Attached (suppressed) to a put's exception when some regions' appends were accepted before the
 * failure: the caller must wait for {@link #future} before releasing the cells' memory.
 */
public final class CellsStillInUse extends Exception {
    private final transient CompletableFuture<?> future;

    CellsStillInUse(CompletableFuture<?> future) {
        super("cells still read by the WAL until this completes", null, false, false);
        this.future = future;
    }

    public CompletableFuture<?> future() {
        return future;
    }

    /** Completes once every {@link CellsStillInUse} suppressed by {@code t} completed. */
    public static CompletableFuture<Void> of(Throwable t) {
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (Throwable s : t.getSuppressed()) {
            if (s instanceof CellsStillInUse c) {
                fs.add(c.future);
            }
        }
        return Futures.allSettled(fs);
    }
}
