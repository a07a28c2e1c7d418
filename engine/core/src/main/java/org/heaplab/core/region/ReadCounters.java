package org.heaplab.core.region;

import java.util.concurrent.atomic.LongAdder;

/**
 * A snapshot of the read counters of one server since it opened ({@link StorageStats#readCounters}),
 * for {@code admin metrics} ("reads") and the labs' per-get ratios.
 *
 * @param gets                     rows asked by gets and multi-gets (a multi-get of 10 rows counts 10)
 * @param scannedRows              rows returned by scans
 * @param storeFilesRead           store files a get read (its bloom filter said the row might be there)
 * @param storeFilesSkippedByBloom store files a get skipped because their row bloom said no
 */
public record ReadCounters(long gets, long scannedRows, long storeFilesRead, long storeFilesSkippedByBloom) {
    /** The live counters behind the snapshots: shared by every region of a server. Thread safe. */
    static final class Live {
        final LongAdder gets = new LongAdder();
        final LongAdder scannedRows = new LongAdder();
        final LongAdder storeFilesRead = new LongAdder();
        final LongAdder storeFilesSkippedByBloom = new LongAdder();

        ReadCounters snapshot() {
            return new ReadCounters(gets.sum(), scannedRows.sum(), storeFilesRead.sum(), storeFilesSkippedByBloom.sum());
        }
    }
}
