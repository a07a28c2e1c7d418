package org.heaplab.core.storefile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.KeyValue;

/**
 * What the store-file tests read of a whole file, through the reader's own scanner and disk reads
 * (no cache). Test code only: the engine reads store files through scans and the block cache.
 */
final class StoreFileContents {
    private StoreFileContents() {
    }

    /** Every cell of the file in order, block by block (small files only). */
    static List<KeyValue> readAll(StoreFileReader r) throws IOException {
        List<KeyValue> all = new ArrayList<>();
        try {
            r.scanner().forEachRemaining(all::add);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return all;
    }

    /** Data block {@code b} (0-based, file order) read from disk, verified and decompressed. */
    static byte[] readBlock(StoreFileReader r, int b) throws IOException {
        return r.readFromDisk(BlockKind.DATA, r.dataBlockLocations().get(b)).array();
    }
}
