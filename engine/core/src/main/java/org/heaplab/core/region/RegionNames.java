package org.heaplab.core.region;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * HBase-style encoded region names: the MD5 (hex) of the table, the region's start key, the table's
 * creation time and the region's index. Derived, never stored centrally, so the master and every region
 * server compute the same name for the same region of the same table creation.
 */
public final class RegionNames {
    private RegionNames() {
    }

    public static String encodedName(String table, byte[] startKey, long createdMs, int index) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update((table + "," + HexFormat.of().formatHex(startKey) + "," + createdMs + "," + index)
                .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md5.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
