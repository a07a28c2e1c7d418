package org.heaplab.core.region;

import java.util.List;

/**
 * What a region server reports about one online region. startKey is empty for the first region,
 * endKey empty for the last one; a region holds rows in [startKey, endKey).
 */
public record RegionInfo(String table, String encodedName, byte[] startKey, byte[] endKey,
                         long memstoreBytes, List<StoreFileInfo> storeFiles) {
}
