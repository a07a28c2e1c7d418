package org.heaplab.core.io;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Store-file bloom filters per column family (HBase's BloomType; ROW is HBase's default). */
public enum BloomType {
    NONE,
    ROW;

    /** Parses a bloom type as HBase spells it (case-insensitive); the message names the supported ones. */
    public static BloomType parse(String name) {
        for (BloomType b : values()) {
            if (b.name().equalsIgnoreCase(name.trim())) {
                return b;
            }
        }
        throw new IllegalArgumentException("bloom filter type '" + name + "' is not supported by this engine; supported: "
            + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
    }
}
