package org.heaplab.core.region;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
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

    /** Checks that region indexes are in [0, regionCount), distinct, and that there is at least one. */
    static void checkRegionIndexes(int[] indexes, int regionCount) {
        if (indexes.length == 0) {
            throw new IllegalArgumentException("no region to open: name at least one region index");
        }
        Set<Integer> seen = new HashSet<>();
        for (int i : indexes) {
            if (i < 0 || i >= regionCount) {
                throw new IllegalArgumentException("region index " + i + " is out of range: the split keys define "
                    + regionCount + " regions (0.." + (regionCount - 1) + ")");
            }
            if (!seen.add(i)) {
                throw new IllegalArgumentException("region index " + i + " is named twice");
            }
        }
    }

    /** The encoded names of the regions {@code indexes} of a table created at {@code createdMs}. */
    static Set<String> encodedNames(String table, byte[][] splitKeys, long createdMs, int[] indexes) {
        Set<String> names = new HashSet<>();
        for (int i : indexes) {
            names.add(RegionNames.encodedName(table, i == 0 ? new byte[0] : splitKeys[i - 1], createdMs, i));
        }
        return names;
    }

    /**
     * Writes the table's descriptor and one region directory per range named in {@code indexes} (0 = the
     * first range); returns the table's directory.
     */
    static Path create(FsLayout layout, TableDescriptor desc, byte[][] splitKeys, long created, int[] indexes)
        throws IOException {
        Path tmp = layout.tmpDir().resolve(desc.name() + "-" + System.nanoTime());
        Files.createDirectories(tmp);
        FsLayout.writeTableDescriptor(tmp, desc);
        for (int i : indexes) {
            byte[] start = i == 0 ? new byte[0] : splitKeys[i - 1];
            byte[] end = i == splitKeys.length ? new byte[0] : splitKeys[i];
            String encoded = RegionNames.encodedName(desc.name(), start, created, i);
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

    /** Removes a table's directory: rename out of data/ (atomic), then delete. */
    static void delete(FsLayout layout, String table) throws IOException {
        Files.createDirectories(layout.trashDir());
        Path trash = layout.trashDir().resolve(table + "-" + System.nanoTime());
        AtomicFiles.publish(layout.tableDir(table), trash);
        AtomicFiles.deleteRecursively(trash);
    }
}
