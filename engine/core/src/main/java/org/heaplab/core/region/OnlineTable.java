package org.heaplab.core.region;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;

/**
 * An online table: its descriptor and the regions this server holds, sorted by start key. Standalone, the
 * regions cover every row (the first start key is empty); in cluster mode the server may hold only some of
 * them, so there are gaps, and a row in a gap is not served here ({@link NotServingRegionException}).
 * Immutable; safe to share.
 */
record OnlineTable(TableDescriptor descriptor, List<Region> regions) {
    OnlineTable {
        regions = regions.stream()
            .sorted((a, b) -> Arrays.compareUnsigned(a.startKey(), b.startKey()))
            .toList();
    }

    /**
     * The region holding {@code row}: the last one whose start key is at or below it, if the row is also
     * below that region's end key.
     *
     * @throws NotServingRegionException when the row falls in a gap (a region held by another server)
     */
    Region regionFor(byte[] row) throws NotServingRegionException {
        int lo = 0;
        int hi = regions.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(regions.get(mid).startKey(), row) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) {
            throw new NotServingRegionException(descriptor.name(), row);
        }
        Region r = regions.get(found);
        byte[] end = r.endKey();
        if (end.length > 0 && Arrays.compareUnsigned(row, end) >= 0) {
            throw new NotServingRegionException(descriptor.name(), row);
        }
        return r;
    }

    /**
     * As {@link #regionFor(byte[])} for the row of {@code cell}, compared where it lies (the put path:
     * no row copy unless the row is refused).
     */
    Region regionFor(Cell cell) throws NotServingRegionException {
        int lo = 0;
        int hi = regions.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (CellComparator.compareRow(cell, regions.get(mid).startKey()) >= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) {
            throw new NotServingRegionException(descriptor.name(), cell.row());
        }
        Region r = regions.get(found);
        byte[] end = r.endKey();
        if (end.length > 0 && CellComparator.compareRow(cell, end) >= 0) {
            throw new NotServingRegionException(descriptor.name(), cell.row());
        }
        return r;
    }

    /**
     * One batch of a scan over this server's regions of the table: see {@link OnlineRegions#scan}. Stops at
     * the end of the last region held here that the range reaches, handing the client the next start row.
     */
    ScanBatch scan(byte[] startRow, byte[] stopRow, int maxRows, ReadScope scope) throws IOException {
        byte[] start = startRow == null ? new byte[0] : startRow;
        byte[] stop = stopRow == null ? new byte[0] : stopRow;
        List<List<Cell>> rows = new ArrayList<>();
        if (stop.length > 0 && Arrays.compareUnsigned(start, stop) >= 0) {
            return new ScanBatch(rows, null);
        }
        while (true) {
            Region r = regionFor(start);
            byte[] end = r.endKey();
            boolean lastRegion = end.length == 0 || (stop.length > 0 && Arrays.compareUnsigned(stop, end) <= 0);
            boolean exhausted = r.scan(start, lastRegion ? stop : end, maxRows - rows.size(), scope, rows);
            if (rows.size() >= maxRows) {
                if (exhausted && lastRegion) {
                    return new ScanBatch(rows, null);
                }
                byte[] next = exhausted ? end : MemstoreCursor.successor(rows.get(rows.size() - 1).get(0).row());
                return new ScanBatch(rows, next);
            }
            if (lastRegion) {
                return new ScanBatch(rows, null);
            }
            if (!holdsRegionStartingAt(end)) { // the next region is another server's: the client goes on there
                return new ScanBatch(rows, end);
            }
            start = end;
        }
    }

    /** True when this server also holds the region starting at {@code key} (a scan may go on into it). */
    boolean holdsRegionStartingAt(byte[] key) {
        for (Region r : regions) {
            if (Arrays.equals(r.startKey(), key)) {
                return true;
            }
        }
        return false;
    }
}
