package org.heaplab.core.cache;

import java.nio.ByteBuffer;

/**
 * One decoded (verified, decompressed) store-file block as a reader uses it: its type and its bytes,
 * which live either on the heap (a block just read from disk, or held by the on-heap LruBlockCache) or
 * in off-heap cache memory (a BucketCache slot).
 *
 * <p>Reference counting: a block handed out by {@link BlockCache#getBlock} carries one reference for its
 * caller, which must call {@link #release} exactly once when it no longer reads the bytes (for a 2.x
 * zero-copy read: after the response holding its cells has been written). Until then the cache will not
 * free or reuse the memory. Heap blocks need no release (the GC frees them), but calling it is harmless,
 * so callers never need to know where a block lives.
 *
 * <p>The bytes are shared and must never be modified. Read them with absolute gets (or a duplicate):
 * {@code data()} returns the shared buffer, whose position is 0 and limit the block's size.
 */
public final class Block {
    /** Gives back one reference to cache memory. */
    @FunctionalInterface
    public interface Ref {
        void release();
    }

    private static final Ref NO_REF = () -> { };

    private final BlockType type;
    private final ByteBuffer data;
    private final Ref ref;

    public Block(BlockType type, ByteBuffer data, Ref ref) {
        this.type = type;
        this.data = data;
        this.ref = ref == null ? NO_REF : ref;
    }

    /** A heap block over {@code bytes} (no reference to give back). */
    public static Block onHeap(BlockType type, byte[] bytes) {
        return new Block(type, ByteBuffer.wrap(bytes), NO_REF);
    }

    public BlockType type() {
        return type;
    }

    /** The shared bytes: position 0, limit = size. Never modify; never change its position or limit. */
    public ByteBuffer data() {
        return data;
    }

    public int size() {
        return data.limit();
    }

    public boolean isOffHeap() {
        return data.isDirect();
    }

    /** Gives back the caller's reference (no-op for heap blocks). Call exactly once per getBlock. */
    public void release() {
        ref.release();
    }
}
