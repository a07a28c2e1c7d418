package org.heaplab.core.region;

/** One immutable store file of a region: where it is, its size, how many cells it holds. */
public record StoreFileInfo(String path, long sizeBytes, long cellCount) {
}
