package org.heaplab.core.cache;

/**
 * Names one data block: the id of the open store-file reader (unique per process, so a block of a
 * deleted or rewritten file can never be mistaken for a new one) and the block's offset in the file.
 */
public record BlockCacheKey(long fileId, long offset) {
}
