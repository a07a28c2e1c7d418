package org.heaplab.server.crash;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.heaplab.client.ClientSettings;
import org.heaplab.client.Connection;
import org.heaplab.client.Delete;
import org.heaplab.client.Put;
import org.heaplab.client.Table;
import org.heaplab.core.wal.Durability;

/**
 * The load during one kill: four writers, each on its own connection sending its next write after the
 * previous answer, and a compactor that major-compacts the table back to back (the engine compacts only on
 * request, so this is what makes compactions constant). Writers: SYNC_WAL single puts, SYNC_WAL batches of
 * five (across regions), FSYNC_WAL single puts, and one that puts rows and deletes its own acknowledged
 * rows 100 writes later, SYNC_WAL and FSYNC_WAL in turn (a delete whose marker often lands in a newer
 * store file than the put it masks). Rows are spread over the table's regions by a hashed prefix.
 *
 * <p>A failed write stays unanswered in the {@link RowLedger}; a writer stops once the server is gone.
 */
final class LoadWriters {
    static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    static final String TABLE = "Crash";
    /** The table's split keys: four regions over the hashed row prefixes 00..ff. */
    static final byte[][] SPLITS = {b("40"), b("80"), b("c0")};
    /** The deleter deletes its row this many writes later: often after a flush, so in a newer store file. */
    private static final int DELETE_AFTER = 100;

    private final RowLedger ledger;
    private final String prefix;
    private final BooleanSupplier serverAlive;
    private long acks; // guarded by this
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Connection> connections = new ArrayList<>();

    /** @param prefix makes this kill's rows unique (epoch and kill number) */
    LoadWriters(RowLedger ledger, String prefix, BooleanSupplier serverAlive) {
        this.ledger = ledger;
        this.prefix = prefix;
        this.serverAlive = serverAlive;
    }

    void start(String host, int port) throws IOException {
        for (int w = 0; w < 5; w++) {
            Connection c = Connection.open(host, port, ClientSettings.DEFAULTS.withRetries(0)); // fail at the kill
            connections.add(c);
            int id = w;
            Runnable body = switch (w) {
                case 0 -> () -> puts(c.getTable(TABLE), id, 1, Durability.SYNC_WAL);
                case 1 -> () -> puts(c.getTable(TABLE), id, 5, Durability.SYNC_WAL);
                case 2 -> () -> puts(c.getTable(TABLE), id, 1, Durability.FSYNC_WAL);
                case 3 -> () -> putsAndDeletes(c.getTable(TABLE), id);
                default -> () -> compact(c);
            };
            Thread t = new Thread(body, "load-" + w);
            threads.add(t);
            t.start();
        }
    }

    /** Puts and deletes answered so far. */
    synchronized long acks() {
        return acks;
    }

    /** Waits until {@code n} writes were answered or {@code timeoutMs} passed; true if they were. */
    synchronized boolean awaitAcks(long n, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (acks < n) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    private synchronized void acked(int n) {
        acks += n;
        notifyAll();
    }

    /** Stops the writers (after the server is gone they stop on their own) and closes their connections. */
    void stopAndJoin() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join(60_000);
        }
        connections.forEach(Connection::close);
    }

    private boolean keepGoing() {
        return !stop.get() && serverAlive.getAsBoolean();
    }

    private String row(int writer, long i) {
        int spread = (int) ((i * 0x9E3779B97F4A7C15L + writer) >>> 56) & 0xff;
        return String.format("%02x-%s-w%d-%07d", spread, prefix, writer, i);
    }

    private void puts(Table t, int id, int batch, Durability d) {
        for (long i = 0; keepGoing(); i += batch) {
            List<String> rows = new ArrayList<>();
            List<Put> puts = new ArrayList<>();
            for (int j = 0; j < batch; j++) {
                String row = row(id, i + j);
                rows.add(row);
                puts.add(put(row, d));
                ledger.putSent(row);
            }
            try {
                if (batch == 1) {
                    t.put(puts.get(0));
                } else {
                    t.put(puts);
                }
            } catch (IOException e) {
                continue; // unanswered: the ledger settles it after the restart
            }
            rows.forEach(ledger::putAcked);
            acked(batch);
        }
    }

    private void putsAndDeletes(Table t, int id) {
        ArrayDeque<String> toDelete = new ArrayDeque<>();
        for (long i = 0; keepGoing(); i++) {
            Durability d = i % 2 == 0 ? Durability.SYNC_WAL : Durability.FSYNC_WAL;
            String row = row(id, i);
            ledger.putSent(row);
            try {
                t.put(put(row, d));
                ledger.putAcked(row);
                acked(1);
                toDelete.add(row);
                if (toDelete.size() > DELETE_AFTER) {
                    String old = toDelete.poll();
                    ledger.deleteSent(old);
                    t.delete(new Delete(b(old)).setDurability(d));
                    ledger.deleteAcked(old);
                    acked(1);
                }
            } catch (IOException e) {
                // unanswered: the ledger settles it after the restart
            }
        }
    }

    private void compact(Connection c) {
        while (keepGoing()) {
            try {
                c.getAdmin().majorCompact(TABLE);
            } catch (IOException e) {
                // the server is gone, or busy: try again while it lives
            }
        }
    }

    private static Put put(String row, Durability d) {
        return new Put(b(row)).addColumn(F, Q, b(RowLedger.value(row))).setDurability(d);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
