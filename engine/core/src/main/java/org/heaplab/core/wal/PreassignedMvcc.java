package org.heaplab.core.wal;

import java.io.IOException;

/**
 * The 2.x order (hbase.hregion.mvcc.preassign): inside one lock the handler claims its ring slot,
 * which fixes its sequence id (firstSeqId + txid), publishes the append and queues its write entry; so
 * sequence order equals WAL order and begin order, and the handler owns its id at once. The consumer
 * thread only checks the stamped id; nobody waits on it to begin a write.
 *
 * <p>Thread safety: as {@link Mvcc}; {@code beginLock} orders this region's slot claims with its queue.
 */
public final class PreassignedMvcc extends AbstractMvcc {
    private final Object beginLock = new Object();

    public PreassignedMvcc(long initialReadPoint) {
        super(initialReadPoint);
    }

    @Override
    public WriteEntry begin(GroupCommitWal wal, WALKey key, WALEdit edit, Durability durability) throws IOException {
        // BEGIN SOLUTION preassigned-mvcc
        WriteEntry e = new WriteEntry();
        synchronized (beginLock) {
            WalAppend a = wal.append(key, edit, durability); // claims slot and id together
            e.set(a.seqId(), a);
            queue.add(e);
        }
        return e;
        // END SOLUTION preassigned-mvcc
        // STUB preassigned-mvcc: throw new UnsupportedOperationException("not implemented: labs/07-write-pipeline/README.md, Build it yourself (preassigned-mvcc)");
    }
}
