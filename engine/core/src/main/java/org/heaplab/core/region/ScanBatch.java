package org.heaplab.core.region;

import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * One batch of a scan ({@link OnlineRegions#scan}): up to {@code maxRows} rows in row order, each the
 * row's live cells in cell order, and where the next batch starts. Scans are stateless on the server:
 * the client passes {@code nextStartRow} back as the next call's start row, so no scanner (and no cache
 * block) stays pinned between calls.
 *
 * @param rows         the rows (never empty lists; a row whose cells are all deleted is skipped)
 * @param nextStartRow the start row of the next batch, or null when the scan is complete
 */
public record ScanBatch(List<List<Cell>> rows, byte[] nextStartRow) {
    /** True when no further batch is needed. */
    public boolean done() {
        return nextStartRow == null;
    }
}
