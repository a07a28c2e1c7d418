package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The first I/O failure of a {@link Wal} (a write, a force, a roll): after it the WAL accepts nothing, and
 * the region server aborts (HBase aborts a region server whose WAL sync fails).
 *
 * @param file  the WAL file that failed
 * @param cause what the file system said
 */
public record WalFailure(Path file, IOException cause) {
    /** One line: the file and what the file system said (the innermost cause: the wrappers repeat the file). */
    public String describe() {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return "WAL " + file + " failed: " + root;
    }
}
