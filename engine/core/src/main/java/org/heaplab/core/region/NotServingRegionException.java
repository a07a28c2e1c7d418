package org.heaplab.core.region;

import java.io.IOException;
import java.util.HexFormat;

/**
 * The row (or the scan's start row) falls outside every region this server holds of the table: in cluster
 * mode the table's other regions live on other region servers. Thrown before anything is applied, so the
 * client may drop its cached location, ask the master again and retry (the wire's NOT_SERVING_REGION).
 */
public final class NotServingRegionException extends IOException {
    public NotServingRegionException(String table, byte[] row) {
        super("this region server holds no region of table '" + table + "' containing row "
            + (row.length == 0 ? "<first>" : HexFormat.of().formatHex(row)) + "; locate the table again");
    }
}
