package org.heaplab.core.region;

import org.heaplab.core.io.Compression;
import org.heaplab.core.wal.Durability;

/**
 * A table: its name, its single column family, the family's store-file compression and the table's
 * default durability (HBase's DURABILITY attribute: USE_DEFAULT means SYNC_WAL, or FSYNC_WAL with
 * hbase.wal.hsync=true; a put's own durability overrides it unless the put's is USE_DEFAULT).
 */
public record TableDescriptor(String name, byte[] family, Compression compression, Durability durability) {
    public TableDescriptor {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,128}")) {
            throw new IllegalArgumentException("illegal table name '" + name + "': use letters, digits, '_', '-', '.'");
        }
        if (family == null || family.length == 0 || family.length > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("family must be 1.." + Byte.MAX_VALUE + " bytes");
        }
        if (durability == null) {
            durability = Durability.USE_DEFAULT;
        }
    }

    /** A table with the default durability (USE_DEFAULT). */
    public TableDescriptor(String name, byte[] family, Compression compression) {
        this(name, family, compression, Durability.USE_DEFAULT);
    }
}
