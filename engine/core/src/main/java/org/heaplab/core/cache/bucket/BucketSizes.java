package org.heaplab.core.cache.bucket;

import java.util.Arrays;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The slot sizes (size classes) of a BucketCache. HBase's 14 defaults are 4, 8, 16, 32, 40, 48, 56, 64,
 * 96, 128, 192, 256, 384 and 512 KB, each plus 1 KB for the block header, checksums and a little
 * overshoot: a 64 KB data block that ends up at 64.3 KB fits the 65 KB class. A block larger than the
 * largest class is never cached. Overridden by hbase.bucketcache.bucket.sizes.
 */
public final class BucketSizes {
    private static final int KB = 1024;
    /** HBase's defaults in bytes (5 KB ... 513 KB). */
    static final int[] DEFAULT = {5 * KB, 9 * KB, 17 * KB, 33 * KB, 41 * KB, 49 * KB, 57 * KB, 65 * KB, 97 * KB,
        129 * KB, 193 * KB, 257 * KB, 385 * KB, 513 * KB};

    private BucketSizes() {
    }

    /** A copy of the 14 default sizes. */
    public static int[] defaults() {
        return DEFAULT.clone();
    }

    /**
     * Parses hbase.bucketcache.bucket.sizes: byte counts, comma separated, each a positive multiple of 256,
     * strictly ascending; null or blank gives the defaults.
     */
    public static int[] parse(String value) {
        if (value == null || value.isBlank()) {
            return defaults();
        }
        String[] parts = value.split(",");
        int[] sizes = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                sizes[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw bad(value);
            }
            if (sizes[i] <= 0 || sizes[i] % 256 != 0 || (i > 0 && sizes[i] <= sizes[i - 1])) {
                throw bad(value);
            }
        }
        return sizes;
    }

    private static ConfigurationException bad(String value) {
        return new ConfigurationException(CacheKeys.BUCKET_CACHE_BUCKET_SIZES + " must be ascending byte sizes,"
            + " each a multiple of 256, comma separated (e.g. 5120,9216,66560), got '" + value + "'");
    }

    static String describe(int[] sizes) {
        return Arrays.toString(Arrays.stream(sizes).map(s -> s / KB).toArray()) + " KB";
    }
}
