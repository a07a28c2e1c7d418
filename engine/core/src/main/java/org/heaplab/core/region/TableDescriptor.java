package org.heaplab.core.region;

import org.heaplab.core.io.Compression;

/**
 * A table: its name, its single column family and the family's store-file compression.
 * (Data block encoding, in-memory and durability join later as further fields.)
 */
public record TableDescriptor(String name, byte[] family, Compression compression) {
    public TableDescriptor {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,128}")) {
            throw new IllegalArgumentException("illegal table name '" + name + "': use letters, digits, '_', '-', '.'");
        }
        if (family == null || family.length == 0 || family.length > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("family must be 1.." + Byte.MAX_VALUE + " bytes");
        }
    }
}
