package org.heaplab.core.region;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The row query cache (the Hypertable article, after Hypertable's QueryCache; HBase has no such cache): the results
 * of gets, keyed by (table, row, qualifiers), kept as heap copies in an LRU of rows bounded by
 * {@code heaplab.regionserver.query.cache.size} MB. A hit answers a get without touching the memstore,
 * the block cache or a store file.
 *
 * <p>Invalidation: every put, delete or increment of a row drops the row's entries in the region's
 * apply step, under the row's write lock, before the write becomes visible. A get that missed and read
 * the row stores its result only if no write invalidated the row meanwhile: it takes a {@link #stamp}
 * (a version counter of the row's stripe) before reading and {@link #put} compares it. Flushes and
 * compactions change no result, so they invalidate nothing; dropping a table drops all its entries.
 *
 * <p>Size of an entry: the cells' serialized bytes plus {@link #ENTRY_OVERHEAD} and
 * {@link #CELL_OVERHEAD} per cell (approximate heap cost). Rows are evicted least recently used first.
 *
 * <p>Thread safety: one monitor guards everything (simple; writers of cached rows and all readers
 * contend on it while the cache is on). When the size is 0 every method returns at once.
 */
public final class RowQueryCache {
    static final int ENTRY_OVERHEAD = 160;
    static final int CELL_OVERHEAD = 48;
    private static final int STRIPES = 1024;

    /** A cache that holds nothing (size 0). */
    static final RowQueryCache OFF = new RowQueryCache(0);

    private final long capacityBytes;
    /** table\0row -> the row's results by qualifier set; access order (LRU first). */
    private final LinkedHashMap<String, RowEntry> rows = new LinkedHashMap<>(256, 0.75f, true);
    private final long[] stripeVersions = new long[STRIPES];
    private long bytes;
    private long entries;
    private long hits;
    private long misses;
    private long invalidations;

    private static final class RowEntry {
        final Map<String, List<Cell>> byQualifiers = new HashMap<>(2);
        long bytes;
    }

    /** Counters since start: hits, misses, entries dropped by writes, entries and bytes now held. */
    public record Metrics(long capacityBytes, long hits, long misses, long invalidations, long entries, long bytes) {
        public double hitRatio() {
            long n = hits + misses;
            return n == 0 ? 0 : (double) hits / n;
        }
    }

    RowQueryCache(long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    /** The server's cache: heaplab.regionserver.query.cache.size MB (0, the default, is off). */
    static RowQueryCache fromConf(Configuration conf) {
        String v = conf.get(RegionKeys.QUERY_CACHE_SIZE, String.valueOf(RegionKeys.DEFAULT_QUERY_CACHE_SIZE_MB)).trim();
        long mb;
        try {
            mb = Long.parseLong(v);
        } catch (NumberFormatException e) {
            mb = -1;
        }
        if (mb < 0 || mb > (Long.MAX_VALUE >> 20)) {
            throw new ConfigurationException(RegionKeys.QUERY_CACHE_SIZE + " must be a size in MB >= 0 (0 = off), got '"
                + v + "'");
        }
        return mb == 0 ? OFF : new RowQueryCache(mb << 20);
    }

    boolean enabled() {
        return capacityBytes > 0;
    }

    private static String rowKey(String table, byte[] row) {
        return table + '\0' + new String(row, StandardCharsets.ISO_8859_1);
    }

    private static String qualifiersKey(List<byte[]> qualifiers) {
        StringBuilder sb = new StringBuilder();
        for (byte[] q : qualifiers) {
            sb.append(q.length).append(':').append(new String(q, StandardCharsets.ISO_8859_1));
        }
        return sb.toString();
    }

    private static int stripe(String rowKey) {
        return Math.floorMod(rowKey.hashCode(), STRIPES);
    }

    /** Taken before a get reads the row; {@link #put} stores the result only if no write came since. */
    long stamp(String table, byte[] row) {
        if (!enabled()) {
            return 0; // off: no monitor on the get path
        }
        int stripe = stripe(rowKey(table, row));
        synchronized (this) {
            return stripeVersions[stripe];
        }
    }

    /** The cached result (unmodifiable heap cells), or null. Counts a hit or a miss. */
    List<Cell> get(String table, byte[] row, List<byte[]> qualifiers) {
        if (!enabled()) {
            return null;
        }
        String rk = rowKey(table, row);
        String qk = qualifiersKey(qualifiers);
        synchronized (this) {
            RowEntry e = rows.get(rk);
            List<Cell> cells = e == null ? null : e.byQualifiers.get(qk);
            if (cells == null) {
                misses++;
            } else {
                hits++;
            }
            return cells;
        }
    }

    /** Stores a heap copy of {@code result} unless the row was written since {@code stamp}. */
    void put(String table, byte[] row, List<byte[]> qualifiers, List<? extends Cell> result, long stamp) {
        if (!enabled()) {
            return;
        }
        List<Cell> copy = new ArrayList<>(result.size());
        long size = ENTRY_OVERHEAD + row.length;
        for (Cell c : result) {
            KeyValue kv = c.toOwnKeyValue(); // store-file cells may be views into cache blocks
            copy.add(kv);
            size += kv.getLength() + CELL_OVERHEAD;
        }
        if (size > capacityBytes) {
            return;
        }
        String rk = rowKey(table, row);
        synchronized (this) {
            if (stripeVersions[stripe(rk)] != stamp) {
                return; // a write invalidated the row while we read it: the result may be stale
            }
            RowEntry e = rows.computeIfAbsent(rk, k -> new RowEntry());
            List<Cell> old = e.byQualifiers.put(qualifiersKey(qualifiers), List.copyOf(copy));
            if (old == null) {
                entries++;
                e.bytes += size;
                bytes += size;
            }
            evict();
        }
    }

    private void evict() {
        Iterator<RowEntry> it = rows.values().iterator();
        while (bytes > capacityBytes && it.hasNext()) {
            RowEntry e = it.next();
            it.remove();
            bytes -= e.bytes;
            entries -= e.byQualifiers.size();
        }
    }

    /** Drops every result of {@code row} (a write to it is being applied). */
    void invalidate(String table, byte[] row) {
        if (!enabled()) {
            return;
        }
        String rk = rowKey(table, row);
        synchronized (this) {
            stripeVersions[stripe(rk)]++;
            RowEntry e = rows.remove(rk);
            if (e != null) {
                bytes -= e.bytes;
                entries -= e.byQualifiers.size();
                invalidations += e.byQualifiers.size();
            }
        }
    }

    /** Drops every result of {@code table} (dropped or closed). */
    void invalidateTable(String table) {
        if (!enabled()) {
            return;
        }
        synchronized (this) {
            dropTable(table);
        }
    }

    private void dropTable(String table) {
        for (int i = 0; i < STRIPES; i++) {
            stripeVersions[i]++;
        }
        String prefix = table + '\0';
        Iterator<Map.Entry<String, RowEntry>> it = rows.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, RowEntry> e = it.next();
            if (e.getKey().startsWith(prefix)) {
                it.remove();
                bytes -= e.getValue().bytes;
                entries -= e.getValue().byQualifiers.size();
            }
        }
    }

    synchronized Metrics metrics() {
        return new Metrics(capacityBytes, hits, misses, invalidations, entries, bytes);
    }
}
