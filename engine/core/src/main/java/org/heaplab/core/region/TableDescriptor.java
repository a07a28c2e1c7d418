package org.heaplab.core.region;

import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.wal.Durability;

/**
 * A table: its name, its single column family with the family's store-file options, and the table's
 * default durability (HBase's DURABILITY attribute: USE_DEFAULT means SYNC_WAL, or FSYNC_WAL with
 * hbase.wal.hsync=true; a put's own durability overrides it unless the put's is USE_DEFAULT).
 *
 * <p>Family options (HBase's column family attributes): COMPRESSION, DATA_BLOCK_ENCODING, BLOOMFILTER
 * (HBase's default ROW) and IN_MEMORY (the block cache's in-memory priority).
 */
public record TableDescriptor(String name, byte[] family, Compression compression, Durability durability,
                              DataBlockEncoding encoding, BloomType bloom, boolean inMemory) {
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
        if (encoding == null) {
            encoding = DataBlockEncoding.NONE;
        }
        if (bloom == null) {
            bloom = BloomType.ROW;
        }
    }

    /** A table with HBase's family defaults: NONE encoding, ROW bloom, not in memory. */
    public TableDescriptor(String name, byte[] family, Compression compression, Durability durability) {
        this(name, family, compression, durability, DataBlockEncoding.NONE, BloomType.ROW, false);
    }

    /** A table with the default durability (USE_DEFAULT) and HBase's family defaults. */
    public TableDescriptor(String name, byte[] family, Compression compression) {
        this(name, family, compression, Durability.USE_DEFAULT);
    }
}
