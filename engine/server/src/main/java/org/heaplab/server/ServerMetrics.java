package org.heaplab.server;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import org.heaplab.core.memstore.ChunkPool;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.rpc.RequestBufferAllocator;

/**
 * The region server's memory and write-path counters as one JSON object: what {@code bin/engine admin
 * metrics} prints (the METRICS call). Groups, each present with zeros when its mechanism is off:
 * {@code heap}, {@code direct} (the JVM's direct buffer pool), {@code memstore} (cells, bytes, MSLAB
 * chunk counters, index kind), {@code request_buffers}, {@code wal}. Field names are a contract
 * (docs/contracts.md): more may be added, none removed.
 *
 * <p>Thread safety: stateless apart from what it reads; safe from any thread.
 */
public final class ServerMetrics {
    /** At most this many System.gc() rounds for {@code gc=true}, stopping once heap used no longer falls. */
    static final int MAX_GC_ROUNDS = 5;

    private final OnlineRegions regions;
    private final RequestBufferAllocator buffers;

    public ServerMetrics(OnlineRegions regions, RequestBufferAllocator buffers) {
        this.regions = regions;
        this.buffers = buffers;
    }

    /** The metrics object; with {@code gc}, after collecting garbage until heap used stops falling. */
    public String json(boolean gc) {
        if (gc) {
            collectGarbage();
        }
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        JsonWriter w = new JsonWriter().put("format", 1).put("tool", "admin").put("command", "metrics")
            .put("gc_requested", gc);
        w.put("heap", new JsonWriter().put("used_bytes", heap.getUsed()).put("committed_bytes", heap.getCommitted())
            .put("max_bytes", heap.getMax()));
        BufferPoolMXBean direct = directPool();
        w.put("direct", new JsonWriter().put("used_bytes", direct == null ? 0 : direct.getMemoryUsed())
            .put("buffers", direct == null ? 0 : direct.getCount()));
        Memstore.MemstoreStats m = regions.memstoreStats();
        ChunkPool.ChunkStats c = m.chunks();
        w.put("memstore", new JsonWriter().put("data_bytes", m.dataBytes()).put("cells", m.cells())
            .put("regions", regions.regionCount()).put("heap_size_bytes", regions.globalMemstoreSize())
            .put("chunks", new JsonWriter().put("offheap_in_use", c.offheapInUse()).put("onheap_in_use", c.onheapInUse())
                .put("heap_fallback", c.heapFallback()).put("pooled_free", c.pooledFree()))
            .put("index", m.index()).put("flattened_segments", m.flattenedSegments()));
        w.put("request_buffers", new JsonWriter().put("pooled_in_use", buffers.pooledInUse())
            .put("heap_fallback", buffers.heapFallbacks()).put("allocations", buffers.allocations())
            .put("heap_bytes", buffers.heapAllocationBytes()).put("pool_bytes", buffers.poolAllocationBytes()));
        w.put("wal", new JsonWriter().put("appends", regions.walAppendCount()).put("syncs", regions.walSyncCount())
            .put("forces", regions.walForceCount()));
        return w.toString();
    }

    /** System.gc() until heap used stops falling (at most {@link #MAX_GC_ROUNDS} rounds). */
    static void collectGarbage() {
        long before = Long.MAX_VALUE;
        for (int i = 0; i < MAX_GC_ROUNDS; i++) {
            System.gc();
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (used >= before) {
                return;
            }
            before = used;
        }
    }

    private static BufferPoolMXBean directPool() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b;
            }
        }
        return null;
    }
}
