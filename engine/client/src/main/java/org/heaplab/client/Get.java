package org.heaplab.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What to read of one row (HBase's Get): every column, or only the qualifiers added with
 * {@link #addColumn}. The engine's tables have one family; the family is checked by the server.
 * Not thread safe while being built.
 */
public final class Get {
    private final byte[] row;
    private final List<byte[]> qualifiers = new ArrayList<>(1);

    public Get(byte[] row) {
        if (row == null || row.length == 0) {
            throw new IllegalArgumentException("a Get needs a non-empty row");
        }
        this.row = row.clone();
    }

    /** Reads only family:qualifier (more calls add more columns). */
    public Get addColumn(byte[] family, byte[] qualifier) {
        qualifiers.add(qualifier.clone());
        return this;
    }

    public byte[] row() {
        return row.clone();
    }

    /** The qualifiers asked for; empty means every column. */
    public List<byte[]> qualifiers() {
        return Collections.unmodifiableList(qualifiers);
    }
}
