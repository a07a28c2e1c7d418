package org.heaplab.core.memstore;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The region server's pool of MSLAB chunks (HBase's ChunkCreator): fixed-size heap byte[] chunks,
 * created lazily, handed to memstores and given back when a flushed snapshot is released. At most
 * {@code maxPooled} chunks are pooled (hbase.hregion.memstore.chunkpool.maxsize x the global memstore
 * limit / chunk size); when every pooled chunk is in use, further chunks are plain allocations that are
 * dropped on return (counted in {@link #unpooledAllocations()}).
 *
 * <p>Ownership: a chunk taken with {@link #take} belongs to the taker until it calls {@link #give};
 * after that its bytes are overwritten by the next user, so no view into it may be read any more.
 *
 * <p>Thread safety: lock-free; every method is safe from any thread.
 */
public final class ChunkPool {
    private final int chunkSize;
    private final int maxPooled;
    private final ConcurrentLinkedQueue<Chunk> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pooledCreated = new AtomicInteger();
    private final AtomicLong unpooled = new AtomicLong();

    public ChunkPool(int chunkSize, int maxPooled) {
        if (chunkSize < 1024) {
            throw new IllegalArgumentException("chunk size " + chunkSize + " is below 1024 bytes");
        }
        this.chunkSize = chunkSize;
        this.maxPooled = Math.max(0, maxPooled);
    }

    /** A chunk for the caller's exclusive use, its allocation pointer at 0. */
    public Chunk take() {
        Chunk c = free.poll();
        if (c != null) {
            return c;
        }
        while (true) {
            int n = pooledCreated.get();
            if (n >= maxPooled) {
                unpooled.incrementAndGet();
                return new Chunk(new byte[chunkSize], false);
            }
            if (pooledCreated.compareAndSet(n, n + 1)) {
                return new Chunk(new byte[chunkSize], true);
            }
        }
    }

    /** Returns a chunk taken from this pool; pooled ones are reused, others are dropped. */
    public void give(Chunk c) {
        if (c.pooled) {
            c.reset();
            free.offer(c);
        }
    }

    public int chunkSize() {
        return chunkSize;
    }

    public int maxPooled() {
        return maxPooled;
    }

    /** Pooled chunks created so far (each at most once). */
    public int pooledCreated() {
        return pooledCreated.get();
    }

    /** Pooled chunks waiting to be reused. */
    public int freeCount() {
        return free.size();
    }

    /** Chunks allocated outside the pool because every pooled chunk was in use. */
    public long unpooledAllocations() {
        return unpooled.get();
    }

    /**
     * One chunk: a heap byte[] and a bump pointer. {@link #allocate} is a CAS on the pointer, so many
     * writers share a chunk without a lock.
     */
    public static final class Chunk {
        final byte[] data;
        final boolean pooled;
        private final AtomicInteger next = new AtomicInteger();

        Chunk(byte[] data, boolean pooled) {
            this.data = data;
            this.pooled = pooled;
        }

        /** Reserves {@code size} bytes; returns their offset, or -1 when the chunk is too full. */
        int allocate(int size) {
            while (true) {
                int at = next.get();
                if (at + size > data.length) {
                    return -1;
                }
                if (next.compareAndSet(at, at + size)) {
                    return at;
                }
            }
        }

        void reset() {
            next.set(0);
        }

        public byte[] data() {
            return data;
        }
    }
}
