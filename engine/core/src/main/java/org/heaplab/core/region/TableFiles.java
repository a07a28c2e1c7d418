package org.heaplab.core.region;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import org.heaplab.core.io.AtomicFiles;

/**
 * Creates and removes a table's directory tree crash-safely: a new table is built completely under
 * data/.tmp and renamed into data/ in one step; a dropped table is renamed out of data/ first and then
 * deleted. After a crash a table therefore exists whole or not at all (leftovers in .tmp and .trash are
 * removed at the next open).
 */
final class TableFiles {
    private TableFiles() {
    }

    /** Checks that split keys are non-empty, strictly increasing (unsigned bytes). */
    static void checkSplitKeys(byte[][] splitKeys) {
        for (int i = 0; i < splitKeys.length; i++) {
            if (splitKeys[i] == null || splitKeys[i].length == 0) {
                throw new IllegalArgumentException("split key #" + i + " is empty");
            }
            if (i > 0 && Arrays.compareUnsigned(splitKeys[i - 1], splitKeys[i]) >= 0) {
                throw new IllegalArgumentException("split keys must be sorted and distinct (#" + i + ")");
            }
        }
    }

    /** Writes the table's descriptor and one region directory per range; returns the table's directory. */
    static Path create(FsLayout layout, TableDescriptor desc, byte[][] splitKeys) throws IOException {
        Path tmp = layout.tmpDir().resolve(desc.name() + "-" + System.nanoTime());
        Files.createDirectories(tmp);
        FsLayout.writeTableDescriptor(tmp, desc);
        long created = System.currentTimeMillis();
        for (int i = 0; i <= splitKeys.length; i++) {
            byte[] start = i == 0 ? new byte[0] : splitKeys[i - 1];
            byte[] end = i == splitKeys.length ? new byte[0] : splitKeys[i];
            String encoded = encodedName(desc.name(), start, created, i);
            Path regionDir = tmp.resolve(encoded);
            Files.createDirectories(regionDir.resolve(FsLayout.familyDirName(desc.family())));
            FsLayout.writeRegionInfo(regionDir, new FsLayout.RegionMeta(desc.name(), encoded, start, end));
            AtomicFiles.fsyncDirectory(regionDir);
        }
        AtomicFiles.fsyncDirectory(tmp);
        Path target = layout.tableDir(desc.name());
        AtomicFiles.publish(tmp, target);
        return target;
    }

    /** HBase-style encoded region name: MD5 (hex) of table, start key, creation time and index. */
    static String encodedName(String table, byte[] startKey, long created, int index) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update((table + "," + HexFormat.of().formatHex(startKey) + "," + created + "," + index)
                .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md5.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Removes a table's directory: rename out of data/ (atomic), then delete. */
    static void delete(FsLayout layout, String table) throws IOException {
        Files.createDirectories(layout.trashDir());
        Path trash = layout.trashDir().resolve(table + "-" + System.nanoTime());
        AtomicFiles.publish(layout.tableDir(table), trash);
        AtomicFiles.deleteRecursively(trash);
    }
}
