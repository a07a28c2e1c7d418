package org.heaplab.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.wal.Durability;

/**
 * The columns to write to one row. Each column becomes one KeyValue of type Put; without a
 * timestamp the server stamps it (LATEST_TIMESTAMP on the wire). Its durability travels with it.
 * Not thread safe while being built.
 */
public final class Put {
    private final byte[] row;
    private final List<KeyValue> cells = new ArrayList<>(1);
    private Durability durability = Durability.USE_DEFAULT;

    public Put(byte[] row) {
        this.row = row.clone();
    }

    public Put addColumn(byte[] family, byte[] qualifier, byte[] value) {
        return addColumn(family, qualifier, KeyValue.LATEST_TIMESTAMP, value);
    }

    public Put addColumn(byte[] family, byte[] qualifier, long timestamp, byte[] value) {
        cells.add(KeyValue.create(row, family, qualifier, timestamp, KeyValue.Type.PUT, value));
        return this;
    }

    /**
     * How durable this put must be before the server acknowledges it (HBase's Mutation.setDurability):
     * USE_DEFAULT (the default) takes the table's durability; anything else overrides it.
     */
    public Put setDurability(Durability durability) {
        this.durability = Objects.requireNonNull(durability, "durability");
        return this;
    }

    public Durability getDurability() {
        return durability;
    }

    public byte[] row() {
        return row.clone();
    }

    public List<KeyValue> cells() {
        return Collections.unmodifiableList(cells);
    }

    /** Serialized size of this put's cells, what a buffered mutator counts against its buffer. */
    public long heapSize() {
        long n = 0;
        for (KeyValue kv : cells) {
            n += kv.getLength();
        }
        return n;
    }
}
