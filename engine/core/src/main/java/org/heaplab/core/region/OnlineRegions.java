package org.heaplab.core.region;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;

/**
 * All tables and regions online on one region server: the storage engine's entry point for the
 * RPC layer. Opening replays the WAL; closing flushes every memstore and closes the WAL.
 *
 * <p>Thread safety: every method may be called by many handler threads at once.
 *
 * <p>CONTRACT STUB: signatures fixed by docs/contracts.md; the storage helper implements them.
 */
public final class OnlineRegions implements Closeable {

    private OnlineRegions() {
    }

    /** Opens (or creates) the data under hbase.rootdir and replays the WAL. */
    public static OnlineRegions open(Configuration conf) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Creates a table whose regions are split at {@code splitKeys} (sorted, distinct; may be empty). */
    public void createTable(TableDescriptor desc, byte[][] splitKeys) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void dropTable(String table) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public boolean tableExists(String table) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public TableDescriptor describe(String table) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public List<String> tables() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /**
     * Writes a batch of cells (any rows, any regions of the table). When this returns the batch is in
     * the WAL and synced (SYNC_WAL), and visible to gets. Cells with LATEST_TIMESTAMP get the server's
     * current time.
     */
    public void put(String table, List<KeyValue> cells) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** The newest version of every column of {@code row}, deletes applied, in cell order; empty if none. */
    public List<KeyValue> get(String table, byte[] row) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public void flush(String table) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Merges each region's store files into one. */
    public void majorCompact(String table) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public List<RegionInfo> regions(String table) throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }

    @Override
    public void close() throws IOException {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
