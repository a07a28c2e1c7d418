package org.heaplab.server;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A call that failed because the disk under hbase.rootdir is full (ENOSPC, "No space left on device",
 * anywhere in its causes: a WAL write, a flush, a compaction) gets an ERROR line in server.log naming the
 * file system and its free space; without it the server fails call after call in silence and only the
 * clients' errors say why. One line at most every {@link #REPEAT_MS} ms, with the count of such failures
 * since the last line. Failure paths only: nothing is done for a call that succeeds.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
final class DiskFull {
    static final String ENOSPC = "No space left on device";
    static final long REPEAT_MS = 10_000;

    private static volatile Path dataDir;
    private static final AtomicLong nextLineMs = new AtomicLong(Long.MIN_VALUE);
    private static final LongAdder unreported = new LongAdder();

    private DiskFull() {
    }

    /** The data directory (hbase.rootdir) whose file system the line describes. */
    static void watch(Path rootdir) {
        dataDir = rootdir;
    }

    /** Logs {@code t} when a full disk caused it (rate limited); returns {@code t}. */
    static Throwable note(Throwable t) {
        String cause = cause(t);
        if (cause == null) {
            return t;
        }
        unreported.increment();
        long now = System.currentTimeMillis();
        long next = nextLineMs.get();
        if (now >= next && nextLineMs.compareAndSet(next, now + REPEAT_MS)) {
            long failures = unreported.sumThenReset();
            ServerLog.error("no space left on device: " + cause + "; " + space(dataDir)
                + (failures > 1 ? " (" + failures + " calls failed so since the last line like this)" : ""));
        }
        return t;
    }

    /** The message of the outermost throwable whose chain reaches an ENOSPC, or null. */
    static String cause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage();
            if (m != null && m.contains(ENOSPC)) {
                return t.getMessage() == null ? m : t.getMessage();
            }
        }
        return null;
    }

    /** "/data (ext4) has 0 bytes free of 16777216 (hbase.rootdir /data/hbase)", or why it is not known. */
    static String space(Path dir) {
        if (dir == null) {
            return "free space unknown (no data directory)";
        }
        try {
            FileStore store = Files.getFileStore(dir);
            return store + " has " + store.getUsableSpace() + " bytes free of " + store.getTotalSpace()
                + " (hbase.rootdir " + dir + ")";
        } catch (IOException | RuntimeException e) {
            return "free space of hbase.rootdir " + dir + " unknown (" + e.getMessage() + ")";
        }
    }
}
