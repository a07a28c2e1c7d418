package org.heaplab.core.region;

import java.io.IOException;

/** A table of that name already exists. */
public final class TableExistsException extends IOException {
    public TableExistsException(String table) {
        super("table '" + table + "' already exists");
    }
}
