package org.heaplab.core.memstore;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The on-heap chunk pool (HBase 2.x with hbase.regionserver.offheap.global.memstore.size = 0): chunks
 * are heap byte[] of hbase.hregion.memstore.mslab.chunksize, created when first needed, at most
 * {@code maxPooled} of them (hbase.hregion.memstore.chunkpool.maxsize x the global memstore limit /
 * chunk size). They live in the old generation for the server's lifetime and are reused after each
 * flush, so the GC sees a fixed set of large arrays instead of one small array per cell.
 * Beyond the bound, chunks are plain allocations, counted as heap fallback and dropped on return.
 */
public final class HeapChunkPool extends AbstractChunkPool {
    private final int maxPooled;
    private final AtomicInteger created = new AtomicInteger();

    public HeapChunkPool(int chunkSize, int maxPooled) {
        this(chunkSize, maxPooled, ChunkLeakDetector.fromSystemProperty());
    }

    /** With a given leak detector: the tests' way to turn it on or off regardless of the system property. */
    HeapChunkPool(int chunkSize, int maxPooled, ChunkLeakDetector leaks) {
        super(chunkSize, leaks);
        this.maxPooled = Math.max(0, maxPooled);
    }

    @Override
    protected Chunk newPooledChunk() {
        while (true) {
            int n = created.get();
            if (n >= maxPooled) {
                return null;
            }
            if (created.compareAndSet(n, n + 1)) {
                MemstoreHeapBytes.add(chunkSize);
                return new Chunk(new byte[chunkSize], Chunk.Kind.ONHEAP_POOLED);
            }
        }
    }

    /** Pooled chunks created so far (each at most once). */
    public int pooledCreated() {
        return created.get();
    }

    public int maxPooled() {
        return maxPooled;
    }

    @Override
    public String describe() {
        return "on-heap chunks of " + chunkSize + " bytes, pool of at most " + maxPooled + " created on demand";
    }
}
