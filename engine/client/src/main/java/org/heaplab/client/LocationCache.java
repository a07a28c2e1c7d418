package org.heaplab.client;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.heaplab.rpc.protocol.RegionLocation;

/**
 * Where each table's regions were served when the client last asked (one LOCATE answer per table,
 * HBase's MetaCache in miniature). A lookup finds the region holding a row by binary search over the
 * start keys. Entries are dropped, never patched: a whole table when a server answers
 * NOT_SERVING_REGION for it, every table with a region on a server the client cannot reach; the next
 * lookup misses and the client asks LOCATE again.
 *
 * <p>Thread safety: thread safe; each table's list is immutable and replaced whole.
 */
public final class LocationCache {
    private final Map<String, List<RegionLocation>> tables = new ConcurrentHashMap<>();

    /** Caches {@code regions} (LOCATE's answer, in start-key order) as {@code table}'s locations. */
    public void put(String table, List<RegionLocation> regions) {
        tables.put(table, List.copyOf(regions));
    }

    /** The cached region holding {@code row}, or null (nothing cached, or the row falls in a gap). */
    public RegionLocation find(String table, byte[] row) {
        List<RegionLocation> regions = tables.get(table);
        if (regions == null || regions.isEmpty()) {
            return null;
        }
        int lo = 0;
        int hi = regions.size() - 1;
        int found = -1;
        while (lo <= hi) { // the last region whose start key is <= row
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(regions.get(mid).startKey(), row) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) {
            return null;
        }
        RegionLocation r = regions.get(found);
        return r.contains(row) ? r : null;
    }

    /** The cached regions of {@code table} (start-key order), or null. */
    public List<RegionLocation> regions(String table) {
        return tables.get(table);
    }

    public void invalidate(String table) {
        tables.remove(table);
    }

    /** Drops every table with a region on {@code server} ("host:port"). */
    public void invalidateServer(String server) {
        tables.entrySet().removeIf(e -> e.getValue().stream().anyMatch(r -> r.server().equals(server)));
    }
}
