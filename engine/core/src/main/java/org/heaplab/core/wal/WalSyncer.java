package org.heaplab.core.wal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One syncer thread of {@link GroupCommitWal} (HBase's SyncRunner). The consumer hands it the syncs
 * that force (FSYNC_WAL appends, {@code sync(true)}; it writes the others itself), round robin over
 * the syncers; a syncer merges every request waiting in its queue into one (the highest txid) and
 * asks the WAL to write and force up to there. The WAL skips the filesystem call when an earlier sync
 * already covered that txid, so one sync completes every future up to the highest synced txid.
 *
 * <p>Thread safety: {@link #request} from the consumer thread (and close); the loop runs on its own
 * daemon thread.
 */
final class WalSyncer implements Runnable {
    /** Sync everything appended up to {@code txid}; {@code force} also forces it to the device. */
    record Request(long txid, boolean force) {
    }

    private static final Request STOP = new Request(Long.MIN_VALUE, false);

    private final GroupCommitWal wal;
    private final LinkedBlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    private final Thread thread;

    WalSyncer(GroupCommitWal wal, String name) {
        this.wal = wal;
        this.thread = new Thread(this, name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void request(long txid, boolean force) {
        queue.add(new Request(txid, force));
    }

    /** Finishes the requests already queued, then ends the thread and waits for it. */
    void stop() throws InterruptedException {
        queue.add(STOP);
        thread.join();
    }

    @Override
    public void run() {
        List<Request> batch = new ArrayList<>();
        while (true) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch);
            long txid = -1;
            boolean force = false;
            boolean stop = false;
            for (Request r : batch) {
                if (r == STOP) {
                    stop = true;
                } else {
                    txid = Math.max(txid, r.txid());
                    force |= r.force();
                }
            }
            batch.clear();
            if (txid >= 0) {
                wal.syncUpTo(txid, force);
            }
            if (stop) {
                return;
            }
        }
    }
}
