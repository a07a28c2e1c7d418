package org.heaplab.core.wal;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How durable a write must be before its handler is acknowledged (HBase's names and meanings).
 *
 * <ul>
 *   <li>{@link #SKIP_WAL}: no WAL record at all; the edit lives only in the memstore until a flush.
 *   <li>{@link #ASYNC_WAL}: the record is appended; the caller does not wait. It becomes durable at the
 *       next sync (a later SYNC/FSYNC append, an explicit sync, the periodic async flush, or close).
 *   <li>{@link #SYNC_WAL}: the caller waits until a write of the record to the file channel (HBase's
 *       hflush): the bytes are in the kernel and survive a kill -9 of the process, not a power loss.
 *   <li>{@link #FSYNC_WAL}: the caller waits until {@code FileChannel.force} covered the record (hsync).
 *   <li>{@link #USE_DEFAULT}: the table's default, which is {@link #SYNC_WAL}.
 * </ul>
 */
public enum Durability {
    USE_DEFAULT,
    SKIP_WAL,
    ASYNC_WAL,
    SYNC_WAL,
    FSYNC_WAL;

    /** The wire code (HBase's protobuf values: USE_DEFAULT 0, SKIP_WAL 1, ASYNC_WAL 2, SYNC_WAL 3, FSYNC_WAL 4). */
    public int code() {
        return ordinal();
    }

    /** The durability with wire code {@code code}; IllegalArgumentException naming the valid codes. */
    public static Durability fromCode(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown durability code " + code + "; valid codes: 0 (USE_DEFAULT) to "
                + (VALUES.length - 1) + " (" + VALUES[VALUES.length - 1] + ")");
        }
        return VALUES[code];
    }

    /** values() once: it clones the array on every call, and every put decodes a durability. */
    private static final Durability[] VALUES = values();

    /** This durability with {@link #USE_DEFAULT} replaced by {@link #SYNC_WAL}. */
    public Durability resolve() {
        return this == USE_DEFAULT ? SYNC_WAL : this;
    }

    /**
     * Parses a name such as {@code "SYNC_WAL"} (case-insensitive, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the bad value and every valid one
     */
    public static Durability parse(String name) {
        if (name != null) {
            String n = name.trim().toUpperCase(Locale.ROOT);
            for (Durability d : values()) {
                if (d.name().equals(n)) {
                    return d;
                }
            }
        }
        throw new IllegalArgumentException("unknown durability '" + name + "'; valid values: "
            + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
    }
}
