package org.heaplab.server;

/**
 * TEMPORARY: the store-file read counters the storefile helper exports as StoreFileReadCounters; zeros
 * until it lands.
 */
record StoreFileCounters(long dataBlocksRead, long bytesRead, long bloomChecks, long bloomNegatives) {
    static StoreFileCounters snapshot() {
        return new StoreFileCounters(0, 0, 0, 0);
    }
}
