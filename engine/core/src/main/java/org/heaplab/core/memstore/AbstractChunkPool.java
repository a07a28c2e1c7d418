package org.heaplab.core.memstore;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What both chunk pools share: the free queue, the heap fallback once the pool is exhausted, jumbo
 * chunks, the counters and the leak detector. A subclass says only how a pooled chunk is made
 * ({@link #newPooledChunk}): lazily on the heap, or never (all reserved off heap at start-up).
 */
abstract class AbstractChunkPool implements ChunkPool {
    protected final int chunkSize;
    private final ConcurrentLinkedQueue<Chunk> free = new ConcurrentLinkedQueue<>();
    private final AtomicLong offheapInUse = new AtomicLong();
    private final AtomicLong onheapInUse = new AtomicLong();
    private final AtomicLong heapFallback = new AtomicLong();
    private final ChunkLeakDetector leaks;

    AbstractChunkPool(int chunkSize, ChunkLeakDetector leaks) {
        if (chunkSize < 1024) {
            throw new IllegalArgumentException("chunk size " + chunkSize + " is below 1024 bytes");
        }
        this.chunkSize = chunkSize;
        this.leaks = leaks;
    }

    /** A new pooled chunk, or null when the pool may not grow (then the caller falls back to the heap). */
    protected abstract Chunk newPooledChunk();

    /** Adds a pooled chunk to the free queue (at start-up, for pools that reserve their memory up front). */
    protected final void addFree(Chunk c) {
        free.offer(c);
    }

    @Override
    public final Chunk take() {
        Chunk c = free.poll();
        if (c == null) {
            c = newPooledChunk();
        }
        if (c == null) {
            heapFallback.incrementAndGet();
            MemstoreHeapBytes.add(chunkSize);
            c = new Chunk(new byte[chunkSize], Chunk.Kind.HEAP_FALLBACK);
        }
        return handOut(c);
    }

    @Override
    public final Chunk takeJumbo(int size) {
        MemstoreHeapBytes.add(size);
        return handOut(new Chunk(new byte[size], Chunk.Kind.JUMBO));
    }

    private Chunk handOut(Chunk c) {
        if (!c.markTaken()) {
            throw new IllegalStateException("chunk handed out twice");
        }
        (c.isOffHeap() ? offheapInUse : onheapInUse).incrementAndGet();
        leaks.taken(c);
        return c;
    }

    @Override
    public final void give(Chunk c) {
        if (!c.markReturned()) {
            throw new IllegalStateException("MSLAB chunk (" + c.kind() + ") returned to the pool twice");
        }
        leaks.returned(c);
        (c.isOffHeap() ? offheapInUse : onheapInUse).decrementAndGet();
        if (c.kind() == Chunk.Kind.OFFHEAP_POOLED || c.kind() == Chunk.Kind.ONHEAP_POOLED) {
            free.offer(c);
        } // fallback and jumbo chunks become garbage
    }

    @Override
    public final int chunkSize() {
        return chunkSize;
    }

    @Override
    public final ChunkStats stats() {
        return new ChunkStats(offheapInUse.get(), onheapInUse.get(), heapFallback.get(), free.size());
    }

    @Override
    public final ChunkLeakDetector leaks() {
        return leaks;
    }
}
