package org.heaplab.core.memstore;

import java.nio.ByteBuffer;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;

/**
 * The off-heap chunk pool (HBase 2.x with hbase.regionserver.offheap.global.memstore.size > 0 and
 * MSLAB on): the whole pool is reserved as direct memory at start-up, in slabs of at most 1 GB cut
 * into chunks, so a pool larger than -XX:MaxDirectMemorySize fails start-up instead of the first flush.
 * Cell bytes then live outside the heap; the GC never copies or scans them. Once every chunk is in
 * use, further chunks come from the heap and are counted as heap fallback (dropped on return).
 *
 * <p>Pitfall: only the cell bytes move off heap. The index (skip-list nodes and one cell object per
 * cell) stays on the heap, unless the memstore flattens it (hbase.hregion.compacting.memstore.type).
 */
public final class OffheapChunkPool extends AbstractChunkPool {
    private static final long MAX_SLAB = 1L << 30;
    private final int chunks;

    /**
     * Reserves {@code chunks} direct chunks.
     *
     * @throws ConfigurationException naming hbase.regionserver.offheap.global.memstore.size when the
     *                                direct memory cannot be reserved
     */
    public OffheapChunkPool(int chunkSize, int chunks) {
        this(chunkSize, chunks, ChunkLeakDetector.fromSystemProperty());
    }

    /** With a given leak detector: the tests' way to turn it on or off regardless of the system property. */
    OffheapChunkPool(int chunkSize, int chunks, ChunkLeakDetector leaks) {
        super(chunkSize, leaks);
        this.chunks = Math.max(0, chunks);
        int perSlab = (int) Math.max(1, MAX_SLAB / chunkSize);
        int left = this.chunks;
        while (left > 0) {
            int n = Math.min(left, perSlab);
            ByteBuffer slab;
            try {
                slab = ByteBuffer.allocateDirect(n * chunkSize);
            } catch (OutOfMemoryError e) {
                throw new ConfigurationException(StorageKeys.OFFHEAP_GLOBAL_MEMSTORE_SIZE + " asks for "
                    + ((long) this.chunks * chunkSize >> 20) + " MB of direct memory for memstore chunks, which this JVM"
                    + " cannot reserve (" + e.getMessage() + "): lower it or raise -XX:MaxDirectMemorySize");
            }
            for (int i = 0; i < n; i++) {
                addFree(new Chunk(slab.slice(i * chunkSize, chunkSize)));
            }
            left -= n;
        }
    }

    @Override
    protected Chunk newPooledChunk() {
        return null; // every pooled chunk was made at start-up
    }

    public int pooledChunks() {
        return chunks;
    }

    @Override
    public String describe() {
        return "off-heap chunks of " + chunkSize + " bytes, " + chunks + " reserved at start-up ("
            + ((long) chunks * chunkSize >> 20) + " MB direct), heap chunks once exhausted";
    }
}
