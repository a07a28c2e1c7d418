package org.heaplab.core.util;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Named points inside a flush, a compaction and a WAL roll where the crash tests stop the process the way
 * kill -9 does, to check that recovery holds when a crash lands exactly there and not only at a random
 * moment (which mostly falls between those stages). engine/docs/write-path.md, "Crash points", says what
 * is on disk at each.
 *
 * <p>A no-op unless the JVM runs with {@code -Dheaplab.test.crash.at=<point>[:<n>]}: then the n-th time
 * (default 1) that point is reached after {@link #arm} (the region server arms once it serves, so the
 * start-up's WAL replay and first WAL file do not count), one line goes to stderr and the JVM halts with
 * {@link #HALT_STATUS} ({@code Runtime.halt}: no shutdown hook, no flush, nothing the engine buffers is
 * written).
 *
 * <p>Thread safety: {@link #reach} may be called from any thread.
 */
public final class CrashPoints {
    public static final String KEY = "heaplab.test.crash.at";
    /** The exit status of a halt at a crash point (tells the test it was its point, not another failure). */
    public static final int HALT_STATUS = 77;

    /** The memstore snapshot is taken and the WAL told; no store file yet. */
    public static final String FLUSH_AFTER_SNAPSHOT = "flush.after-snapshot";
    /** The new store file is published in the family directory; the snapshot is still held, the WAL not told. */
    public static final String FLUSH_AFTER_FILE_WRITTEN = "flush.after-file-written";
    /** The store file is in the region's view and the snapshot dropped; the WAL is not yet told (old files stay). */
    public static final String FLUSH_BEFORE_WAL_MARKED = "flush.before-wal-marked";
    /** The merged file is published beside its inputs; no input is removed yet. */
    public static final String COMPACTION_AFTER_FILE_WRITTEN = "compaction.after-file-written";
    /** The first input file is removed, the others not yet. */
    public static final String COMPACTION_AFTER_FIRST_REMOVAL = "compaction.after-first-removal";
    /** The old WAL file is closed (drained, forced); the next one does not exist yet. */
    public static final String ROLL_AFTER_OLD_CLOSED = "roll.after-old-closed";
    /** A new WAL file exists but its header is not written. */
    public static final String WAL_FILE_BEFORE_HEADER = "wal.file-before-header";
    /** The next WAL file is open; obsolete old files are not deleted yet. */
    public static final String ROLL_AFTER_NEW_OPENED = "roll.after-new-opened";

    public static final List<String> ALL = List.of(FLUSH_AFTER_SNAPSHOT, FLUSH_AFTER_FILE_WRITTEN,
        FLUSH_BEFORE_WAL_MARKED, COMPACTION_AFTER_FILE_WRITTEN, COMPACTION_AFTER_FIRST_REMOVAL, ROLL_AFTER_OLD_CLOSED,
        WAL_FILE_BEFORE_HEADER, ROLL_AFTER_NEW_OPENED);

    private static final String POINT = chosenPoint(System.getProperty(KEY));
    private static final long AT = chosenCount(System.getProperty(KEY));
    private static final AtomicLong REACHED = new AtomicLong();
    private static volatile boolean armed;

    private CrashPoints() {
    }

    /** From now on arrivals count (the server serves: what follows is live work, not recovery). */
    public static void arm() {
        armed = true;
    }

    /** Halts the JVM if {@code point} is the chosen one and this is its n-th arrival; otherwise nothing. */
    public static void reach(String point) {
        if (POINT != null && armed && POINT.equals(point) && REACHED.incrementAndGet() == AT) {
            System.err.println("crash point " + point + " reached (#" + AT + "): halting (" + KEY + ")");
            System.err.flush();
            Runtime.getRuntime().halt(HALT_STATUS);
        }
    }

    private static String chosenPoint(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String point = value.split(":", 2)[0].trim();
        if (!ALL.contains(point)) {
            throw new IllegalArgumentException(KEY + "=" + value + ": unknown point; the points are " + ALL);
        }
        return point;
    }

    private static long chosenCount(String value) {
        if (value == null || !value.contains(":")) {
            return 1;
        }
        long n = Long.parseLong(value.split(":", 2)[1].trim());
        if (n < 1) {
            throw new IllegalArgumentException(KEY + "=" + value + ": the count must be >= 1");
        }
        return n;
    }
}
