package org.heaplab.core.util;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/** What the write path needs beyond {@link CompletableFuture}'s own combinators. */
public final class Futures {
    private Futures() {
    }

    /**
     * Completes normally once every one of {@code futures} has completed, normally or not. Unlike
     * {@link CompletableFuture#allOf} it never completes exceptionally: a caller that releases memory
     * the futures' work still reads must wait for all of them, failed or not.
     */
    public static CompletableFuture<Void> allSettled(Collection<? extends CompletableFuture<?>> futures) {
        CompletableFuture<?>[] settled = new CompletableFuture<?>[futures.size()];
        int i = 0;
        for (CompletableFuture<?> f : futures) {
            settled[i++] = f.handle((v, t) -> null);
        }
        return CompletableFuture.allOf(settled);
    }
}
