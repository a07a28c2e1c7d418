package org.heaplab.core.cache;

/**
 * The read-path switch of labs 04 and 06 (heaplab.regionserver.read.path): what a store-file reader does
 * with a block the cache handed out, before it serves cells from it. One implementation per path, chosen
 * once at start-up:
 * <ul>
 *   <li>{@code HeapCopyReadPath} (heap-copy, HBase 1.x): an off-heap block is copied onto a new heap
 *       byte[] and its reference released at once; cells point into heap memory (garbage per cache hit).</li>
 *   <li>{@code ZeroCopyReadPath} (zero-copy, HBase 2.x, HBASE-11425): the block is used where it lives; its
 *       reference is held by the read's {@link ReadScope} until the response is written.</li>
 * </ul>
 */
public interface ReadPath {
    /**
     * The block to read cells from. Takes over the caller's reference of {@code cached}: it is either
     * released here (after a copy) or handed to {@code scope}.
     */
    Block use(Block cached, ReadScope scope);

    /** The configuration value naming this path: heap-copy or zero-copy. */
    String name();
}
