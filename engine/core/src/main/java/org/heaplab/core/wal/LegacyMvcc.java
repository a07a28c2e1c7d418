package org.heaplab.core.wal;

import java.io.IOException;

/**
 * The 1.x order (the HBASE-16698 shape): the handler publishes its append without a sequence id; the
 * WAL's single consumer thread, when it reaches the slot, assigns the id and queues the write entry
 * (in ring order, so sequence order equals WAL order), then counts down the latch the handler is
 * blocked on in {@link #begin}. Every writing handler thus waits for the consumer thread, even with
 * ASYNC_WAL; under heavy load that wait is the contention HBASE-16698 describes.
 *
 * <p>Thread safety: as {@link Mvcc}; the queue is added to only on the consumer thread.
 */
public final class LegacyMvcc extends AbstractMvcc {

    public LegacyMvcc(long initialReadPoint) {
        super(initialReadPoint);
    }

    @Override
    public WriteEntry begin(GroupCommitWal wal, WALKey key, WALEdit edit, Durability durability) throws IOException, InterruptedException {
        WriteEntry e = new WriteEntry();
        WalAppend a = wal.appendUnassigned(key, edit, durability, seqId -> {
            e.setSeqId(seqId);
            queue.add(e); // on the consumer thread, in ring order
        });
        e.setAppend(a);
        a.awaitSeqId(); // the latch the consumer counts down
        return e;
    }
}
