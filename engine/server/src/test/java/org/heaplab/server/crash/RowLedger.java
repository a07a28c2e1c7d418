package org.heaplab.server.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every row the writers sent, and what the table must hold for it after a restart. A row is written once,
 * with a value made from its name ({@link #value}), and may later be deleted; so a row present with
 * another value is corrupt, and a present row the ledger never saw is a phantom.
 *
 * <p>A put or delete that got no answer (the kill came first) may or may not have survived; the first check
 * after the kill settles it, and from then on the row must stay as found (a write once recovered is as
 * durable as an acknowledged one; a write found gone must not come back).
 *
 * <p>Thread safety: writers record concurrently; {@link #check} runs while no writer runs.
 */
final class RowLedger {
    private enum State {
        PUT_SENT, PUT_ACKED, RECOVERED, DELETE_SENT, DELETE_ACKED, GONE
    }

    /** What one check found. Lost counts acknowledged puts missing and acknowledged deletes undone. */
    record Check(int ackedChecked, int lost, int corrupt, int phantom, int resurrected, List<String> examples) {
        boolean clean() {
            return lost == 0 && corrupt == 0 && phantom == 0 && resurrected == 0;
        }
    }

    private final Map<String, State> rows = new ConcurrentHashMap<>();

    static String value(String row) {
        return row + ":" + "v".repeat(160) + ":" + Integer.toHexString(row.hashCode());
    }

    void putSent(String row) {
        rows.put(row, State.PUT_SENT);
    }

    void putAcked(String row) {
        rows.put(row, State.PUT_ACKED);
    }

    /** Only rows whose put was acknowledged are deleted. */
    void deleteSent(String row) {
        rows.put(row, State.DELETE_SENT);
    }

    void deleteAcked(String row) {
        rows.put(row, State.DELETE_ACKED);
    }

    /** Compares the table's rows (row -> value, a full scan) with the ledger and settles unanswered writes. */
    Check check(Map<String, String> present) {
        int acked = 0;
        int lost = 0;
        int corrupt = 0;
        int phantom = 0;
        int resurrected = 0;
        List<String> examples = new ArrayList<>();
        for (Map.Entry<String, String> e : present.entrySet()) {
            if (!rows.containsKey(e.getKey())) {
                phantom++;
                example(examples, "phantom " + e.getKey());
            } else if (!value(e.getKey()).equals(e.getValue())) {
                corrupt++;
                example(examples, "corrupt " + e.getKey() + " = " + e.getValue());
            }
        }
        for (Map.Entry<String, State> e : rows.entrySet()) {
            String row = e.getKey();
            boolean there = present.containsKey(row);
            switch (e.getValue()) {
                case PUT_ACKED, RECOVERED -> {
                    acked += e.getValue() == State.PUT_ACKED ? 1 : 0;
                    if (!there) {
                        lost++;
                        example(examples, "lost " + e.getValue() + " " + row);
                    }
                }
                case DELETE_ACKED -> {
                    acked++;
                    if (there) {
                        lost++;
                        example(examples, "acknowledged delete undone: " + row);
                    }
                }
                case GONE -> {
                    if (there) {
                        resurrected++;
                        example(examples, "came back after it was gone: " + row);
                    }
                }
                case PUT_SENT -> e.setValue(there ? State.RECOVERED : State.GONE);
                case DELETE_SENT -> e.setValue(there ? State.PUT_ACKED : State.GONE);
            }
        }
        return new Check(acked, lost, corrupt, phantom, resurrected, examples);
    }

    int size() {
        return rows.size();
    }

    private static void example(List<String> examples, String what) {
        if (examples.size() < 5) {
            examples.add(what);
        }
    }
}
