package org.heaplab.core.region;

import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.storefile.StoreFileTuning;

/**
 * What every region of one server shares, each chosen once at start-up by {@link OnlineRegions#open}:
 * the block cache, the read path (heap-copy or zero-copy), the global memstore accounting, the memstore
 * factory, the read counters, the row query cache and the store-file tuning (index block, bloom sizes).
 */
record RegionServices(BlockCache cache, ReadPath readPath, MemstorePressure pressure, Memstore.Factory memstores,
                      ReadCounters.Live readCounters, RowQueryCache queryCache,
                      StoreFileTuning tuning) {
}
