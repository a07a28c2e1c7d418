package org.heaplab.core.wal;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * Where {@link GroupCommitWal} puts its records: one WAL file, split into the three steps group
 * commit needs (HBase's writer append / hflush / hsync). An interface so that tests can count, delay
 * or fail syncs.
 *
 * <p>Thread safety: {@link #append} is called by the one consumer thread; {@link #flush} by the
 * consumer or a syncer thread, {@link #force} by syncer threads; {@link GroupCommitWal} serializes
 * them (one flush at a time, one force at a time), and a syncer's may overlap with appends. Implementations must make every record
 * appended before a {@link #flush} started reach the file channel, in append order, before it returns.
 */
public interface WalSink extends Closeable {
    /**
     * Buffers one record (in memory: nothing reaches the file yet). The cells are encoded (copied)
     * before this returns and not retained.
     */
    void append(long seqId, String table, String region, List<? extends Cell> cells) throws IOException;

    /** {@link #append(long, String, String, List)} of a decoded record. */
    default void append(WalRecord record) throws IOException {
        append(record.seqId(), record.table(), record.region(), record.cells());
    }

    /** Writes every buffered record to the file channel (write(2): survives a process kill). */
    void flush() throws IOException;

    /** Forces everything written to the device ({@code FileChannel.force}: survives a power loss). */
    void force() throws IOException;
}
