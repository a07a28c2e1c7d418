package org.heaplab.core.storefile;

import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide counters of store-file reads for gets and scans (compaction's sequential reads are not
 * counted), exported by the server's metrics (store_files) and turned into "disk reads per get" by the
 * labs.
 */
public final class StoreFileReadCounters {
    /** Data blocks read from the file (block cache misses). */
    static final LongAdder DATA_BLOCKS_READ = new LongAdder();
    /** On-disk bytes of every block read from the file for reads: data, index and bloom blocks. */
    static final LongAdder BYTES_READ = new LongAdder();
    /** Row bloom filter consultations (files with a bloom filter only). */
    static final LongAdder BLOOM_CHECKS = new LongAdder();
    /** Consultations that said "not here": the file was skipped. */
    static final LongAdder BLOOM_NEGATIVES = new LongAdder();

    private StoreFileReadCounters() {
    }

    /** The counters at one moment (monotonic since start-up; take deltas). */
    public record Snapshot(long dataBlocksRead, long bytesRead, long bloomChecks, long bloomNegatives) {
        /** {@code this - earlier}, field by field. */
        public Snapshot minus(Snapshot earlier) {
            return new Snapshot(dataBlocksRead - earlier.dataBlocksRead, bytesRead - earlier.bytesRead,
                bloomChecks - earlier.bloomChecks, bloomNegatives - earlier.bloomNegatives);
        }
    }

    public static Snapshot snapshot() {
        return new Snapshot(DATA_BLOCKS_READ.sum(), BYTES_READ.sum(), BLOOM_CHECKS.sum(), BLOOM_NEGATIVES.sum());
    }
}
