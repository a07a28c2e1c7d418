package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.Method;
import org.heaplab.rpc.ParamReader;
import org.heaplab.rpc.ParamWriter;
import org.heaplab.rpc.Response;
import org.heaplab.rpc.RowsCodec;

/**
 * Reads and writes one table over a {@link Connection}: put, get (one row, several rows), scanners,
 * increment, delete. A put returns once the server has the cells in its WAL as durable as the put's
 * durability asks (the table's by default). Thread safe (holds no state beyond its name).
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

    /** Every column of {@code row} (an empty Result when the row has none). */
    public Result get(byte[] row) throws IOException {
        return get(new Get(row));
    }

    /** GET: the row's newest live version of every column, or of the columns the Get names. */
    public Result get(Get get) throws IOException {
        ParamWriter w = new ParamWriter().writeString(name).writeBytes(get.row());
        writeQualifiers(w, get.qualifiers());
        return new Result(connection.call(Method.GET, w.toByteArray(), List.of()).cells());
    }

    /** MULTI_GET: all rows in one call (any regions); results in the order of {@code gets}. */
    public Result[] get(List<Get> gets) throws IOException {
        ParamWriter w = new ParamWriter().writeString(name).writeInt(gets.size());
        for (Get g : gets) {
            w.writeBytes(g.row());
            writeQualifiers(w, g.qualifiers());
        }
        Response r = connection.call(Method.MULTI_GET, w.toByteArray(), List.of());
        List<List<KeyValue>> rows = RowsCodec.readRows(r.paramReader(), r.cells(), r.callId());
        if (rows.size() != gets.size()) {
            throw new IOException("MULTI_GET answered " + rows.size() + " rows for " + gets.size() + " gets");
        }
        Result[] out = new Result[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new Result(rows.get(i));
        }
        return out;
    }

    /** A scanner over {@code scan}'s rows; it fetches {@code scan.caching()} rows per call. */
    public ResultScanner getScanner(Scan scan) {
        return new ResultScanner(this, scan);
    }

    /** One SCAN call's answer: its rows and the row to continue from (null when the range is done). */
    record ScanBatch(List<List<KeyValue>> rows, byte[] nextStartRow) {
    }

    ScanBatch scanBatch(byte[] startRow, byte[] stopRow, int caching) throws IOException {
        byte[] params = new ParamWriter().writeString(name).writeBytes(startRow).writeBytes(stopRow).writeInt(caching)
            .toByteArray();
        Response r = connection.call(Method.SCAN, params, List.of());
        ParamReader in = r.paramReader();
        List<List<KeyValue>> rows = RowsCodec.readRows(in, r.cells(), r.callId());
        byte[] next = in.readBoolean() ? in.readBytes() : null;
        return new ScanBatch(rows, next);
    }

    /**
     * INCREMENT: adds {@code delta} to the 64-bit counter at family:qualifier of {@code row} (absent
     * counts as 0) atomically on the server and returns the new value. Logged in the WAL with the
     * table's durability.
     */
    public long increment(byte[] row, byte[] family, byte[] qualifier, long delta) throws IOException {
        return increment(row, family, qualifier, delta, Durability.USE_DEFAULT);
    }

    public long increment(byte[] row, byte[] family, byte[] qualifier, long delta, Durability durability)
        throws IOException {
        byte[] params = new ParamWriter().writeString(name).writeBytes(row).writeBytes(family).writeBytes(qualifier)
            .writeLong(delta).writeInt(durability.code()).toByteArray();
        return connection.call(Method.INCREMENT, params, List.of()).paramReader().readLong();
    }

    /** DELETE: writes the delete's markers (through the WAL and memstore like a put). */
    public void delete(Delete delete) throws IOException {
        connection.call(Method.DELETE, putParams(delete.getDurability()), delete.cells());
    }

    private static void writeQualifiers(ParamWriter w, List<byte[]> qualifiers) {
        w.writeInt(qualifiers.size());
        for (byte[] q : qualifiers) {
            w.writeBytes(q);
        }
    }

    /** A buffered writer that sends puts in batches of about {@code bufferBytes} (HBase: 2 MB). */
    public BufferedMutator bufferedMutator(long bufferBytes) {
        return new BufferedMutator(this, bufferBytes);
    }
}
