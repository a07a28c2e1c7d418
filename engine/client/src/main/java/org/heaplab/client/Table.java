package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.Method;
import org.heaplab.rpc.ParamWriter;

/**
 * Reads and writes one table over a {@link Connection}. A put returns once the server has the
 * cells in its WAL as durable as the put's durability asks (the table's by default). Thread safe (holds no state beyond its name).
 */
public final class Table {
    private final Connection connection;
    private final String name;

    Table(Connection connection, String name) {
        this.connection = connection;
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** Sends the put with its durability; returns once the server acknowledged it as that durability asks. */
    public void put(Put put) throws IOException {
        connection.call(Method.PUT, putParams(put.getDurability()), put.cells());
    }

    /**
     * Sends all puts in one call (one PUT request, one WAL record per region). The batch travels with
     * one durability, the strongest of its puts' (as HBase's batch: SKIP &lt; ASYNC &lt; SYNC &lt; FSYNC), where
     * a USE_DEFAULT put counts as the table's: a batch mixing USE_DEFAULT with weaker explicit values
     * is sent as USE_DEFAULT.
     */
    public void put(List<Put> puts) throws IOException {
        List<KeyValue> cells = new ArrayList<>();
        for (Put p : puts) {
            cells.addAll(p.cells());
        }
        connection.call(Method.PUT, putParams(batchDurability(puts)), cells);
    }

    static Durability batchDurability(List<Put> puts) {
        boolean anyDefault = false;
        Durability strongest = null;
        for (Put p : puts) {
            Durability d = p.getDurability();
            if (d == Durability.USE_DEFAULT) {
                anyDefault = true;
            } else if (strongest == null || d.compareTo(strongest) > 0) {
                strongest = d;
            }
        }
        if (strongest == null || (anyDefault && strongest.compareTo(Durability.SYNC_WAL) < 0)) {
            return Durability.USE_DEFAULT;
        }
        return strongest;
    }

    private byte[] putParams(Durability d) {
        return new ParamWriter().writeString(name).writeInt(d.code()).toByteArray();
    }

    public Result get(byte[] row) throws IOException {
        byte[] params = new ParamWriter().writeString(name).writeBytes(row).toByteArray();
        return new Result(connection.call(Method.GET, params, List.of()).cells());
    }

    /** A buffered writer that sends puts in batches of about {@code bufferBytes} (HBase: 2 MB). */
    public BufferedMutator bufferedMutator(long bufferBytes) {
        return new BufferedMutator(this, bufferBytes);
    }
}
