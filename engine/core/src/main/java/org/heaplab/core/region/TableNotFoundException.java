package org.heaplab.core.region;

import java.io.IOException;

/** The named table does not exist on this server. */
public final class TableNotFoundException extends IOException {
    public TableNotFoundException(String table) {
        super("table '" + table + "' does not exist");
    }
}
