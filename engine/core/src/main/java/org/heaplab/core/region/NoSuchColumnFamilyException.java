package org.heaplab.core.region;

import java.io.IOException;

/** A cell names a column family that its table does not have (HBase's exception of the same name). */
public final class NoSuchColumnFamilyException extends IOException {
    public NoSuchColumnFamilyException(String table, String family) {
        super("column family '" + family + "' does not exist in table '" + table + "'");
    }
}
