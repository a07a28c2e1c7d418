package org.heaplab.core.memstore;

/**
 * The region server's pool of MSLAB chunks (HBase's ChunkCreator + MemStoreChunkPool). Two
 * implementations, chosen once at start-up: {@link HeapChunkPool} (chunks are heap byte[], created
 * lazily up to a bound) and {@link OffheapChunkPool} (chunks are slices of direct memory reserved at
 * start-up, hbase.regionserver.offheap.global.memstore.size). Both fall back to plain heap chunks when
 * every pooled chunk is in use, and count them.
 *
 * <p>Ownership: a chunk returned by {@link #take} belongs to the caller until it calls {@link #give};
 * after that its bytes belong to the next user. Giving a chunk twice is a bug and throws.
 *
 * <p>Thread safety: every method is safe from any thread.
 */
public interface ChunkPool {
    /** A chunk for the caller's exclusive use, its allocation pointer at 0. */
    Chunk take();

    /** Returns a chunk taken from this pool: pooled ones are reused, fallback and jumbo ones dropped. */
    void give(Chunk c);

    /** A heap chunk of exactly {@code size} bytes for one cell above the max allocation (give it back too). */
    Chunk takeJumbo(int size);

    int chunkSize();

    /** Counters for the metrics (a consistent-enough snapshot; each field read once). */
    ChunkStats stats();

    /** One line for the start-up log. */
    String describe();

    /**
     * The test-mode leak detector ({@code -Dheaplab.leak.detection=true}, or the pools' test
     * constructors): where each chunk still out was taken. Empty when detection is off.
     */
    ChunkLeakDetector leaks();

    /** Chunk counters: chunks in use by kind, heap fallbacks so far, pooled chunks waiting for reuse. */
    record ChunkStats(long offheapInUse, long onheapInUse, long heapFallback, long pooledFree) {
        public static final ChunkStats NONE = new ChunkStats(0, 0, 0, 0);
    }
}
