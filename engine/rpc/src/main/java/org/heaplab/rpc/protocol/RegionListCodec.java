package org.heaplab.rpc.protocol;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.StoreFileInfo;

/**
 * Encodes the LIST_REGIONS answer and decodes what it encodes.
 *
 * <pre>
 *   int regionCount, then per region:
 *     string table, string encodedName, bytes startKey, bytes endKey, long memstoreBytes,
 *     int storeFileCount, then per store file: string path, long sizeBytes, long cellCount
 * </pre>
 */
public final class RegionListCodec {
    private static final int MAX_COUNT = 1_000_000;

    private RegionListCodec() {
    }

    public static void write(ParamWriter w, List<RegionInfo> regions) {
        w.writeInt(regions.size());
        for (RegionInfo r : regions) {
            w.writeString(r.table()).writeString(r.encodedName()).writeBytes(r.startKey()).writeBytes(r.endKey())
                .writeLong(r.memstoreBytes()).writeInt(r.storeFiles().size());
            for (StoreFileInfo f : r.storeFiles()) {
                w.writeString(f.path()).writeLong(f.sizeBytes()).writeLong(f.cellCount());
            }
        }
    }

    public static List<RegionInfo> read(ParamReader r) throws MalformedFrameException {
        int n = r.readCount(MAX_COUNT);
        List<RegionInfo> regions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String table = r.readString();
            String name = r.readString();
            byte[] start = r.readBytes();
            byte[] end = r.readBytes();
            long memstore = r.readLong();
            int files = r.readCount(MAX_COUNT);
            List<StoreFileInfo> storeFiles = new ArrayList<>(files);
            for (int j = 0; j < files; j++) {
                storeFiles.add(new StoreFileInfo(r.readString(), r.readLong(), r.readLong()));
            }
            regions.add(new RegionInfo(table, name, start, end, memstore, storeFiles));
        }
        return regions;
    }
}
