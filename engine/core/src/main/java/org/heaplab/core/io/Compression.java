package org.heaplab.core.io;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Store-file block compression codecs the engine has (HBase's Compression.Algorithm names). */
public enum Compression {
    NONE,
    SNAPPY;

    /**
     * Parses a codec name as HBase spells it (case-insensitive).
     *
     * @throws IllegalArgumentException naming the codec and the ones the engine supports
     */
    public static Compression parse(String name) {
        for (Compression c : values()) {
            if (c.name().equalsIgnoreCase(name.trim())) {
                return c;
            }
        }
        throw new IllegalArgumentException("compression codec '" + name + "' is not supported by this engine; supported: "
            + Arrays.stream(values()).map(c -> c.name()).collect(Collectors.joining(", ")));
    }

    public String lowerName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
