package org.heaplab.core.wal;

import java.io.PrintStream;
import java.nio.file.Path;
import org.heaplab.core.conf.Configuration;

/**
 * Child process for {@link GroupCommitWalCrashTest}: appends SYNC_WAL (and some FSYNC_WAL) records from
 * several threads to a new WAL file forever, printing {@code ACK <seqId>} (flushed) after each append
 * is acknowledged, until the parent kills it. Prints {@code READY} once the WAL is open.
 *
 * <p>Usage: {@code CrashChild <wal file> <threads>}
 */
public final class CrashChild {
    private CrashChild() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int threads = Integer.parseInt(args[1]);
        PrintStream out = System.out;
        GroupCommitWal wal = GroupCommitWal.create(file, 1, new Configuration());
        out.println("READY");
        out.flush();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    for (long i = 0; ; i++) {
                        Durability d = i % 7 == 0 ? Durability.FSYNC_WAL : Durability.SYNC_WAL;
                        long seq = wal.append("t", "r", GroupCommitWalTest.cells(id + "-" + i), d).awaitDurable();
                        synchronized (out) {
                            out.println("ACK " + seq);
                            out.flush();
                        }
                    }
                } catch (Exception e) {
                    synchronized (out) {
                        out.println("ERROR " + e);
                        out.flush();
                    }
                }
            });
            th.start();
        }
    }
}
