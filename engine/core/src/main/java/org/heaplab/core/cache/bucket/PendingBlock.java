package org.heaplab.core.cache.bucket;

import org.heaplab.core.cache.Block;
import org.heaplab.core.cache.BlockCacheKey;
import org.heaplab.core.cache.BlockPriority;

/**
 * A block offered to the BucketCache and not yet copied into a slot (HBase's RAMQueueEntry). It sits in
 * the cache's RAM map, where readers already find it, and in one writer queue. {@code block} is a heap
 * block the cache may keep (the caller's heap block, or a heap copy of an off-heap one).
 */
record PendingBlock(BlockCacheKey key, Block block, BlockPriority priority) {
}
