package org.heaplab.core.wal;

/**
 * One write in an {@link Mvcc}'s queue: its sequence id (the MVCC write number, equal to its WAL
 * sequence id) and its WAL append. Cells of the write carry the sequence id; readers whose read point
 * is below it do not see them.
 *
 * <p>Thread safety: the sequence id is set once, before the entry is queued; {@code completed} is
 * guarded by the owning {@link PendingWrites}'s lock.
 */
public final class WriteEntry {
    private volatile long seqId = -1;
    private volatile WalAppend append;
    boolean completed;

    WriteEntry() {
    }

    void set(long seqId, WalAppend append) {
        this.seqId = seqId;
        this.append = append;
    }

    void setSeqId(long seqId) {
        this.seqId = seqId;
    }

    void setAppend(WalAppend append) {
        this.append = append;
    }

    /** The write number: the WAL sequence id of this write. */
    public long seqId() {
        return seqId;
    }

    /** The WAL append: wait on {@code append().durable()} for durability before acknowledging. */
    public WalAppend append() {
        return append;
    }
}
