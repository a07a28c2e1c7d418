package org.heaplab.server.crash;

import java.util.Map;
import java.util.TreeMap;

/** The figures of a crash run, for its summary line: kills by point, writes checked, and what went wrong. */
final class CrashTally {
    private final Map<String, Integer> halted = new TreeMap<>();
    private final Map<String, Integer> missed = new TreeMap<>();
    private int kills;
    private long acks;
    private long ackedChecks;
    private long lost;
    private long corrupt;
    private long phantom;
    private long resurrected;

    /** A kill made: {@code reached} when the child halted at its point (or was SIGKILLed as planned). */
    void killed(String point, boolean reached, long acksBefore) {
        kills++;
        acks += acksBefore;
        (reached ? halted : missed).merge(point, 1, Integer::sum);
    }

    void checked(RowLedger.Check c) {
        ackedChecks += c.ackedChecked();
        lost += c.lost();
        corrupt += c.corrupt();
        phantom += c.phantom();
        resurrected += c.resurrected();
    }

    /** Points that were planned but never reached (the child was killed at the deadline instead). */
    Map<String, Integer> missed() {
        return missed;
    }

    Map<String, Integer> halted() {
        return halted;
    }

    String summary(long seed, long wallMs) {
        return String.format("%d kill points (%d reached: %s; missed: %s), %d acknowledged writes, %d checks of "
                + "acknowledged writes after restarts, lost = %d, corrupt = %d, phantom = %d, resurrected = %d, "
                + "wall time %.1f s, seed %d", kills, halted.values().stream().mapToInt(Integer::intValue).sum(), halted,
            missed, acks, ackedChecks, lost, corrupt, phantom, resurrected, wallMs / 1000.0, seed);
    }
}
