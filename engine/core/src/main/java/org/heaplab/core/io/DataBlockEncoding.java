package org.heaplab.core.io;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Data block encodings the engine has (HBase's DataBlockEncoding names and ids), chosen per column family
 * (admin create --blockEncoding, pe --blockEncoding). Layouts: engine/docs/store-file.md.
 */
public enum DataBlockEncoding {
    NONE(0),
    DIFF(3),
    ROW_INDEX_V1(7);

    /** HBase's encoding id (stable: store files carry it). */
    public final int id;

    DataBlockEncoding(int id) {
        this.id = id;
    }

    /** The encoding with this id, or null. */
    public static DataBlockEncoding ofId(int id) {
        for (DataBlockEncoding e : values()) {
            if (e.id == id) {
                return e;
            }
        }
        return null;
    }

    /**
     * Parses an encoding name as HBase spells it (case-insensitive).
     *
     * @throws IllegalArgumentException naming the value and the supported ones
     */
    public static DataBlockEncoding parse(String name) {
        for (DataBlockEncoding e : values()) {
            if (e.name().equalsIgnoreCase(name.trim())) {
                return e;
            }
        }
        throw new IllegalArgumentException("data block encoding '" + name + "' is not supported by this engine; supported: "
            + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
    }
}
