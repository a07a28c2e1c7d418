package org.heaplab.core.memstore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test-mode bookkeeping of the chunks a pool has handed out: each take records where it happened, each
 * give removes it, so a test can prove that every chunk came back ({@link #assertNoLeaks}). Off by
 * default (it keeps a stack trace per chunk); on with {@code -Dheaplab.leak.detection=true} or
 * {@link #enabled(boolean)}. Returning a chunk twice is caught by the chunk itself, always.
 *
 * <p>Thread safety: safe from any thread.
 */
public final class ChunkLeakDetector {
    /** The system property that turns detection on for every pool created afterwards. */
    public static final String PROPERTY = "heaplab.leak.detection";

    private final boolean enabled;
    private final Map<Chunk, Throwable> outstanding = new ConcurrentHashMap<>();

    private ChunkLeakDetector(boolean enabled) {
        this.enabled = enabled;
    }

    /** On when {@code -Dheaplab.leak.detection=true}. */
    static ChunkLeakDetector fromSystemProperty() {
        return new ChunkLeakDetector(Boolean.getBoolean(PROPERTY));
    }

    static ChunkLeakDetector enabled(boolean on) {
        return new ChunkLeakDetector(on);
    }

    public boolean isEnabled() {
        return enabled;
    }

    void taken(Chunk c) {
        if (enabled) {
            outstanding.put(c, new Throwable("chunk (" + c.kind() + ", " + c.size() + " bytes) taken here"));
        }
    }

    void returned(Chunk c) {
        if (enabled) {
            outstanding.remove(c);
        }
    }

    /** Chunks taken and not yet given back (0 when detection is off). */
    public int outstanding() {
        return outstanding.size();
    }

    /** Throws, naming where each chunk still out was taken, unless every chunk came back. */
    public void assertNoLeaks() {
        if (!enabled) {
            throw new IllegalStateException("leak detection is off: set -D" + PROPERTY + "=true");
        }
        List<Throwable> sites = new ArrayList<>(outstanding.values());
        if (!sites.isEmpty()) {
            IllegalStateException e = new IllegalStateException(sites.size() + " MSLAB chunk(s) never returned to the pool");
            sites.stream().limit(5).forEach(e::addSuppressed);
            throw e;
        }
    }
}
