package org.heaplab.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cache.BlockType;
import org.heaplab.core.cache.CacheMetrics;
import org.heaplab.core.memstore.ChunkPool;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.memstore.MemstoreHeapBytes;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.ReadCounters;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.RowQueryCache;
import org.heaplab.core.region.StoreFileInfo;
import org.heaplab.core.storefile.StoreFileReadCounters;
import org.heaplab.core.util.JsonWriter;
import org.heaplab.rpc.buffers.HeapCopies;
import org.heaplab.rpc.buffers.RequestBufferAllocator;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.server.RpcMetrics;
import org.heaplab.rpc.server.RpcScheduler;
import org.heaplab.rpc.server.RpcServer;

/**
 * The region server's memory and write-path counters as one JSON object: what {@code bin/engine admin
 * metrics} prints (the METRICS call). Groups, each present with zeros when its mechanism is off:
 * {@code heap}, {@code direct} (the JVM's direct buffer pool), {@code memstore} (cells, bytes, MSLAB
 * chunk counters, index kind), {@code request_buffers}, {@code wal}; {@code block_cache}
 * (one entry per cache, counters per block type), {@code store_files} (disk reads, bloom checks, file
 * count), {@code reads} (rows asked by gets, rows scanned), {@code query_cache}, {@code process}
 * (cpu_ms: process CPU time, for CPU per get; rss_bytes: the process's resident set, where the OS tells it);
 * {@code rpc} (as the HTTP endpoint shows it, once
 * {@link #rpcServer} is set); the mechanism counters: {@code alloc} (heap bytes allocated per thread group,
 * {@link ThreadAllocations}), {@code copies} (payload bytes copied into heap memory on the RPC paths,
 * {@link HeapCopies}), {@code rpc_calls} (calls per method, {@link RpcCallCounts}) and {@code gc} (collections
 * since start-up, young ones apart). The same object also builds the HTTP endpoint's JSON ({@link #endpointJson}).
 * Field names are a contract (docs/contracts.md): more may be added, none removed.
 *
 * <p>Thread safety: stateless apart from what it reads; safe from any thread.
 */
public final class ServerMetrics {
    /** At most this many System.gc() rounds for {@code gc=true}, stopping once heap used no longer falls. */
    static final int MAX_GC_ROUNDS = 5;

    private final OnlineRegions regions;
    private final RequestBufferAllocator buffers;
    private final ReadCalls reads;
    private final IncrementCall increments;
    private final RpcCallCounts calls;
    private volatile RpcServer rpcServer; // once set, the METRICS report carries the rpc group too

    public ServerMetrics(OnlineRegions regions, RequestBufferAllocator buffers) {
        this(regions, buffers, new ReadCalls(), new IncrementCall(), new RpcCallCounts());
    }

    ServerMetrics(OnlineRegions regions, RequestBufferAllocator buffers, ReadCalls reads, IncrementCall increments,
                  RpcCallCounts calls) {
        this.regions = regions;
        this.buffers = buffers;
        this.reads = reads;
        this.increments = increments;
        this.calls = calls;
        ThreadAllocations.process(); // from now on threads that end keep their bytes in the tally
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
        w.put("memstore", memstore());
        w.put("request_buffers", new JsonWriter().put("pooled_in_use", buffers.pooledInUse())
            .put("heap_fallback", buffers.heapFallbacks()).put("allocations", buffers.allocations())
            .put("heap_bytes", buffers.heapAllocationBytes()).put("pool_bytes", buffers.poolAllocationBytes()));
        w.put("wal", new JsonWriter().put("appends", regions.stats().walAppendCount()).put("syncs", regions.stats().walSyncCount())
            .put("forces", regions.stats().walForceCount()));
        w.put("block_cache", blockCache(regions.stats().blockCacheMetrics()));
        w.put("store_files", storeFiles());
        ReadCounters rc = regions.stats().readCounters();
        w.put("reads", new JsonWriter().put("gets", rc.gets()).put("scanned_rows", rc.scannedRows())
            .put("scan_batches", reads.scanBatches()).put("increments", increments.increments())
            .put("store_files_read", rc.storeFilesRead()).put("store_files_skipped_by_bloom", rc.storeFilesSkippedByBloom()));
        w.put("query_cache", queryCache());
        JsonWriter process = new JsonWriter().put("cpu_ms", processCpuMillis());
        long rss = residentSetBytes();
        if (rss >= 0) {
            process.put("rss_bytes", rss);
        }
        w.put("process", process);
        w.put("alloc", alloc()).put("copies", copies()).put("rpc_calls", calls.json()).put("gc", collections());
        RpcServer rpcNow = rpcServer;
        if (rpcNow != null) {
            w.put("rpc", rpc(rpcNow));
        }
        return w.toString();
    }

    /**
     * Adds the RPC server's group ({@link #rpc}: queues, handler busy time, per-method counts and latencies)
     * to the METRICS report, so `admin metrics` phases record it beside the other counters.
     */
    public void rpcServer(RpcServer rpc) {
        this.rpcServer = rpc;
    }

    /**
     * The region server's HTTP endpoint object (GET /metrics, docs/contracts.md section 7): the process
     * groups of {@link #endpoint} for role "regionserver", then {@code block_cache} and {@code memstore}
     * as the METRICS call reports them.
     */
    public String endpointJson(String server, RpcServer rpc) {
        return endpoint("regionserver", server, rpc).put("block_cache", blockCache(regions.stats().blockCacheMetrics()))
            .put("memstore", memstore()).put("rpc_calls", calls.json()).toString();
    }

    /**
     * What every server's endpoint shows, the master's too: {@code format}, {@code role}, {@code server}
     * (its RPC address), {@code uptime_ms}, {@code rpc} ({@link #rpc}), {@code memory} (heap and direct
     * memory, used and maximum) and {@code gc} (pauses since the endpoint started, from
     * {@link GcEventRecorder#pauseLog()}, plus the JVM's per-collector totals since start).
     */
    public static JsonWriter endpoint(String role, String server, RpcServer rpc) {
        return new JsonWriter().put("format", 1).put("role", role).put("server", server)
            .put("uptime_ms", ManagementFactory.getRuntimeMXBean().getUptime())
            .put("rpc", rpc(rpc)).put("memory", memory()).put("gc", gc()).put("alloc", alloc()).put("copies", copies());
    }

    /**
     * Heap bytes the process's threads allocated since start-up, by thread group ({@link ThreadAllocations}):
     * {"total_bytes", "by_group": {handler, reader, wal, flush, other}, "threads", "supported"}.
     */
    static JsonWriter alloc() {
        ThreadAllocations.Snapshot s = ThreadAllocations.process().snapshot();
        JsonWriter by = new JsonWriter();
        for (ThreadAllocations.Group g : ThreadAllocations.Group.values()) {
            by.put(g.jsonName, s.byGroup().get(g));
        }
        return new JsonWriter().put("total_bytes", s.totalBytes()).put("by_group", by).put("threads", s.threads())
            .put("supported", s.supported());
    }

    /** Payload bytes (and times) the RPC servers copied into heap memory since start-up ({@link HeapCopies}). */
    static JsonWriter copies() {
        HeapCopies.Snapshot c = HeapCopies.snapshot();
        return new JsonWriter().put("request_heap_bytes", c.requestBytes()).put("response_heap_bytes", c.responseBytes())
            .put("request_heap_copies", c.requestCopies()).put("response_heap_copies", c.responseCopies());
    }

    /**
     * The RPC server: {@code impl} (hbase.rpc.server.impl's name), {@code handlers}, {@code queues} (one
     * per call queue kind: handlers, length now, capacity, calls dispatched and rejected with SERVER_BUSY
     * since start), {@code handler_busy_ms} (handler time spent running calls, summed over handlers), and
     * {@code methods}: per method called at least once, count, errors and latency in ms from decode to
     * answer (mean, p50, p99, max) and the mean queue wait.
     */
    static JsonWriter rpc(RpcServer rpc) {
        RpcScheduler scheduler = rpc.scheduler();
        List<JsonWriter> queues = new ArrayList<>();
        for (RpcScheduler.QueueStats q : scheduler.queues()) {
            queues.add(new JsonWriter().put("kind", q.kind()).put("handlers", q.handlers()).put("length", q.length())
                .put("capacity", q.capacity()).put("dispatched", q.dispatched()).put("rejected", q.rejected()));
        }
        JsonWriter methods = new JsonWriter();
        for (Map.Entry<Method, RpcMetrics.MethodStats> e : rpc.metrics().snapshot().entrySet()) {
            RpcMetrics.MethodStats m = e.getValue();
            methods.put(e.getKey().name(), new JsonWriter().put("count", m.count()).put("errors", m.errors())
                .put("mean_ms", m.meanMs()).put("p50_ms", m.p50Ms()).put("p99_ms", m.p99Ms()).put("max_ms", m.maxMs())
                .put("queue_mean_ms", m.meanQueueMs()));
        }
        return new JsonWriter().put("impl", rpc.name()).put("handlers", rpc.handlerCount()).put("queues", queues)
            .put("handler_busy_ms", scheduler.handlerBusyNanos() / 1_000_000).put("methods", methods);
    }

    /** {"heap_used", "heap_committed", "heap_max", "direct_used", "direct_buffers", "direct_max"} in bytes. */
    static JsonWriter memory() {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        BufferPoolMXBean direct = directPool();
        return new JsonWriter().put("heap_used", heap.getUsed()).put("heap_committed", heap.getCommitted())
            .put("heap_max", heap.getMax()).put("direct_used", direct == null ? 0 : direct.getMemoryUsed())
            .put("direct_buffers", direct == null ? 0 : direct.getCount()).put("direct_max", maxDirectMemory());
    }

    /** -XX:MaxDirectMemorySize, or the JVM's default for it (the maximum heap) when unset. */
    static long maxDirectMemory() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            long configured = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
            return configured > 0 ? configured : Runtime.getRuntime().maxMemory();
        } catch (RuntimeException e) { // not a HotSpot JVM
            return Runtime.getRuntime().maxMemory();
        }
    }

    /** The pause log's figures, then {"collectors": [{name, count, time_ms}]} from the GC MXBeans. */
    static JsonWriter gc() {
        List<JsonWriter> collectors = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectors.add(new JsonWriter().put("name", gc.getName()).put("count", gc.getCollectionCount())
                .put("time_ms", gc.getCollectionTime()));
        }
        return GcEventRecorder.pauseLog().json().put("collectors", collectors);
    }

    /**
     * Collections since start-up: {"young_count", "young_time_ms", "collectors": [{name, count, time_ms}]},
     * young = the young-generation collectors (G1 Young Generation, PS Scavenge, Copy, ParNew), so that a
     * window's young GCs are the difference of two reports.
     */
    static JsonWriter collections() {
        List<JsonWriter> collectors = new ArrayList<>();
        long youngCount = 0;
        long youngMs = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectors.add(new JsonWriter().put("name", gc.getName()).put("count", gc.getCollectionCount())
                .put("time_ms", gc.getCollectionTime()));
            if (isYoung(gc.getName())) {
                youngCount += Math.max(0, gc.getCollectionCount());
                youngMs += Math.max(0, gc.getCollectionTime());
            }
        }
        return new JsonWriter().put("young_count", youngCount).put("young_time_ms", youngMs).put("collectors", collectors);
    }

    static boolean isYoung(String collector) {
        return collector.contains("Young") || collector.contains("Scavenge") || collector.equals("Copy")
            || collector.equals("ParNew");
    }

    /** Cells, bytes and chunks of every memstore, the index kind (the METRICS call's memstore group). */
    private JsonWriter memstore() {
        Memstore.MemstoreStats m = regions.stats().memstoreStats();
        ChunkPool.ChunkStats c = m.chunks();
        return new JsonWriter().put("data_bytes", m.dataBytes()).put("cells", m.cells())
            .put("regions", regions.stats().regionCount()).put("heap_size_bytes", regions.stats().globalMemstoreSize())
            .put("chunks", new JsonWriter().put("offheap_in_use", c.offheapInUse()).put("onheap_in_use", c.onheapInUse())
                .put("heap_fallback", c.heapFallback()).put("pooled_free", c.pooledFree()))
            .put("index", m.index()).put("flattened_segments", m.flattenedSegments())
            .put("heap_allocated_bytes", MemstoreHeapBytes.total());
    }

    /** {"caches": [{name, capacity_bytes, ..., by_type: {data: {hits, misses, hit_ratio}, ...}}]}. */
    static JsonWriter blockCache(List<CacheMetrics> caches) {
        List<JsonWriter> list = new ArrayList<>();
        for (CacheMetrics m : caches) {
            JsonWriter byType = new JsonWriter();
            for (BlockType t : BlockType.values()) {
                CacheMetrics.Counts c = m.byType().getOrDefault(t, new CacheMetrics.Counts(0, 0));
                byType.put(t.metricName(), new JsonWriter().put("hits", c.hits()).put("misses", c.misses())
                    .put("hit_ratio", c.hitRatio()));
            }
            list.add(new JsonWriter().put("name", m.name()).put("capacity_bytes", m.capacityBytes())
                .put("used_bytes", m.usedBytes()).put("block_count", m.blockCount()).put("evictions", m.evictions())
                .put("evicted_blocks", m.evictedBlocks()).put("failed_inserts", m.failedInserts())
                .put("wasted_bytes", m.wastedBytes()).put("hits", m.hits()).put("misses", m.misses())
                .put("hit_ratio", m.hitRatio()).put("by_type", byType));
        }
        return new JsonWriter().put("caches", list);
    }

    /** Store-file reads since start-up, and the store files online now: how many, and their bytes on disk. */
    private JsonWriter storeFiles() {
        StoreFileReadCounters.Snapshot c = StoreFileReadCounters.snapshot();
        long count = 0;
        long bytes = 0;
        for (String t : regions.tables()) {
            try {
                for (RegionInfo r : regions.regions(t)) {
                    count += r.storeFiles().size();
                    bytes += r.storeFiles().stream().mapToLong(StoreFileInfo::sizeBytes).sum();
                }
            } catch (IOException e) {
                // dropped meanwhile
            }
        }
        return new JsonWriter().put("data_blocks_read", c.dataBlocksRead()).put("bytes_read", c.bytesRead())
            .put("bloom_checks", c.bloomChecks()).put("bloom_negatives", c.bloomNegatives()).put("count", count)
            .put("size_bytes", bytes);
    }

    private JsonWriter queryCache() {
        RowQueryCache.Metrics q = regions.stats().queryCacheMetrics();
        return new JsonWriter().put("hits", q.hits()).put("misses", q.misses()).put("invalidations", q.invalidations())
            .put("entries", q.entries()).put("bytes", q.bytes()).put("capacity_bytes", q.capacityBytes())
            .put("hit_ratio", q.hitRatio());
    }

    /** Process CPU time in milliseconds (all threads, user + system), 0 when the JVM cannot tell. */
    static long processCpuMillis() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        // com.sun's extension of the java.lang.management bean imported above: same simple name
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            long ns = sun.getProcessCpuTime();
            return ns < 0 ? 0 : ns / 1_000_000;
        }
        return 0;
    }

    /**
     * The process's resident set size in bytes (VmRSS of /proc/self/status: every page of the JVM in RAM,
     * heap, direct buffers, metaspace, code, thread stacks), or -1 where there is no such file (not Linux).
     */
    static long residentSetBytes() {
        return residentSetBytes(Path.of("/proc/self/status"));
    }

    static long residentSetBytes(Path status) {
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmRSS:")) { // "VmRSS:    123456 kB"
                    String[] words = line.substring("VmRSS:".length()).trim().split("\\s+");
                    return Long.parseLong(words[0]) * (words.length > 1 && words[1].equalsIgnoreCase("kB") ? 1024 : 1);
                }
            }
        } catch (IOException | RuntimeException e) {
            // unreadable or unexpected: not reported
        }
        return -1;
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
