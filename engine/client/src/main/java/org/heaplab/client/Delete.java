package org.heaplab.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.wal.Durability;

/**
 * What to delete of one row (HBase's Delete), sent as delete markers through the server's put path:
 * <ul>
 *   <li>{@code new Delete(row)} alone, or {@link #addFamily}: a DeleteFamily marker (every column up to
 *       the timestamp, now by default);</li>
 *   <li>{@link #addColumns}: a DeleteColumn marker (every version of the column up to the timestamp);</li>
 *   <li>{@link #addColumn}: a Delete marker of one version (the newest, or the given timestamp).</li>
 * </ul>
 * Not thread safe while being built.
 */
public final class Delete {
    private final byte[] row;
    private final long timestamp;
    private final List<KeyValue> cells = new ArrayList<>(1);
    private Durability durability = Durability.USE_DEFAULT;

    /** Deletes the whole row (all versions up to now) unless columns are added. */
    public Delete(byte[] row) {
        this(row, KeyValue.LATEST_TIMESTAMP);
    }

    /** Deletes the whole row up to {@code timestamp} unless columns are added. */
    public Delete(byte[] row, long timestamp) {
        if (row == null || row.length == 0) {
            throw new IllegalArgumentException("a Delete needs a non-empty row");
        }
        this.row = row.clone();
        this.timestamp = timestamp;
    }

    public Delete addFamily(byte[] family) {
        return marker(family, new byte[0], timestamp, KeyValue.Type.DELETE_FAMILY);
    }

    /** Every version of family:qualifier up to the delete's timestamp. */
    public Delete addColumns(byte[] family, byte[] qualifier) {
        return addColumns(family, qualifier, timestamp);
    }

    public Delete addColumns(byte[] family, byte[] qualifier, long ts) {
        return marker(family, qualifier, ts, KeyValue.Type.DELETE_COLUMN);
    }

    /** The newest version of family:qualifier. */
    public Delete addColumn(byte[] family, byte[] qualifier) {
        return addColumn(family, qualifier, KeyValue.LATEST_TIMESTAMP);
    }

    /** The version of family:qualifier at exactly {@code ts}. */
    public Delete addColumn(byte[] family, byte[] qualifier, long ts) {
        return marker(family, qualifier, ts, KeyValue.Type.DELETE);
    }

    public Delete setDurability(Durability durability) {
        this.durability = Objects.requireNonNull(durability, "durability");
        return this;
    }

    public Durability getDurability() {
        return durability;
    }

    public byte[] row() {
        return row.clone();
    }

    /**
     * The markers; a bare row delete is one DeleteFamily marker with an empty family, which the server
     * reads as "the table's family" (HBase's Delete(row) deletes every family).
     */
    List<KeyValue> cells() {
        if (cells.isEmpty()) {
            return List.of(KeyValue.create(row, new byte[0], new byte[0], timestamp, KeyValue.Type.DELETE_FAMILY, new byte[0]));
        }
        return Collections.unmodifiableList(cells);
    }

    private Delete marker(byte[] family, byte[] qualifier, long ts, KeyValue.Type type) {
        cells.add(KeyValue.create(row, family, qualifier, ts, type, new byte[0]));
        return this;
    }
}
