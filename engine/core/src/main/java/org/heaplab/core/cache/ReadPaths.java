package org.heaplab.core.cache;

import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/** Chooses the server's {@link ReadPath} once at start-up from heaplab.regionserver.read.path. */
public final class ReadPaths {
    public static final String KEY = "heaplab.regionserver.read.path";
    public static final String DEFAULT = HeapCopyReadPath.NAME;

    private ReadPaths() {
    }

    public static ReadPath fromConf(Configuration conf) {
        String v = conf.get(KEY, DEFAULT).trim();
        return switch (v) {
            case HeapCopyReadPath.NAME -> new HeapCopyReadPath();
            case ZeroCopyReadPath.NAME -> new ZeroCopyReadPath();
            default -> throw new ConfigurationException(KEY + " must be " + HeapCopyReadPath.NAME + " or "
                + ZeroCopyReadPath.NAME + ", got '" + v + "'");
        };
    }
}
