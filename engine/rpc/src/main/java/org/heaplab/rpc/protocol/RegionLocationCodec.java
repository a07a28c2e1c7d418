package org.heaplab.rpc.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * Encodes the LOCATE answer and decodes what it encodes.
 *
 * <pre>
 *   int regionCount, then per region in start-key order:
 *     string table, string encodedName, bytes startKey, bytes endKey, string server ("host:port"),
 *     boolean serverOnline
 * </pre>
 */
public final class RegionLocationCodec {
    private static final int MAX_COUNT = 1_000_000;

    private RegionLocationCodec() {
    }

    public static void write(ParamWriter w, List<RegionLocation> regions) {
        w.writeInt(regions.size());
        for (RegionLocation r : regions) {
            w.writeString(r.table()).writeString(r.encodedName()).writeBytes(r.startKey()).writeBytes(r.endKey())
                .writeString(r.server()).writeBoolean(r.serverOnline());
        }
    }

    public static List<RegionLocation> read(ParamReader r) throws MalformedFrameException {
        int n = r.readCount(MAX_COUNT);
        List<RegionLocation> regions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            regions.add(new RegionLocation(r.readString(), r.readString(), r.readBytes(), r.readBytes(), r.readString(),
                r.readBoolean()));
        }
        return regions;
    }
}
