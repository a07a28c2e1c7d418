package org.heaplab.core.region;

import java.util.Arrays;
import java.util.List;

/**
 * An online table: its descriptor and its regions sorted by start key (the first start key is empty,
 * the regions cover every row). Immutable; safe to share.
 */
record OnlineTable(TableDescriptor descriptor, List<Region> regions) {
    OnlineTable {
        regions = regions.stream()
            .sorted((a, b) -> Arrays.compareUnsigned(a.startKey(), b.startKey()))
            .toList();
    }

    /** The region holding {@code row}: the last one whose start key is at or below it. */
    Region regionFor(byte[] row) {
        int lo = 0;
        int hi = regions.size() - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(regions.get(mid).startKey(), row) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return regions.get(found);
    }
}
