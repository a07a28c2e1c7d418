package org.heaplab.core.storefile;

/** Where a block sits in its file: offset of its header and its on-disk size (header + payload). */
record BlockLocation(long offset, int onDiskSize) {
}
