package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RowsCodec;

/**
 * Reads and writes one table over a {@link Connection}: put, get (one row, several rows), scanners,
 * increment, delete. A put returns once the server has the cells in its WAL as durable as the put's
 * durability asks (the table's by default). Every call finds its region server through the
 * connection's location cache and is retried as {@link RetryingCaller} describes; batches are split
 * per region server and sent in parallel. Thread safe (holds no state beyond its name).
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
        byte[] params = putParams(put.getDurability());
        caller().callRegion("PUT", name, put.row(), true, (rpc, region) -> rpc.call(Method.PUT, params, put.cells()));
    }

    /**
     * Sends the puts split per region server, one PUT call per server (one WAL record per region), the
     * calls in parallel; returns when every server acknowledged its part. A server's part that fails is
     * located again and resent (puts are idempotent). The batch travels with one durability, the
     * strongest of its puts' (as HBase's batch: SKIP &lt; ASYNC &lt; SYNC &lt; FSYNC), where a USE_DEFAULT put
     * counts as the table's: a batch mixing USE_DEFAULT with weaker explicit values is sent as USE_DEFAULT.
     */
    public void put(List<Put> puts) throws IOException {
        if (puts.isEmpty()) {
            return;
        }
        byte[] params = putParams(batchDurability(puts));
        byte[][] rows = new byte[puts.size()][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = puts.get(i).row();
        }
        caller().callBatch("PUT", name, rows, (rpc, items) -> {
            List<KeyValue> cells = new ArrayList<>();
            for (int i : items) {
                cells.addAll(puts.get(i).cells());
            }
            rpc.call(Method.PUT, params, cells);
        });
    }

    static Durability batchDurability(List<Put> puts) {
        return strongest(puts.stream().map(Put::getDurability).toList());
    }

    private static Durability strongest(List<Durability> durabilities) {
        boolean anyDefault = false;
        Durability strongest = null;
        for (Durability d : durabilities) {
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
        byte[] params = w.toByteArray();
        return caller().callRegion("GET", name, get.row(), true,
            (rpc, region) -> new Result(rpc.call(Method.GET, params, List.of()).cells()));
    }

    /**
     * MULTI_GET: the rows split per region server, one call per server, the calls in parallel; results
     * in the order of {@code gets}.
     */
    public Result[] get(List<Get> gets) throws IOException {
        Result[] out = new Result[gets.size()];
        if (gets.isEmpty()) {
            return out;
        }
        byte[][] rows = new byte[gets.size()][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = gets.get(i).row();
        }
        caller().callBatch("MULTI_GET", name, rows, (rpc, items) -> {
            ParamWriter w = new ParamWriter().writeString(name).writeInt(items.length);
            for (int i : items) {
                w.writeBytes(gets.get(i).row());
                writeQualifiers(w, gets.get(i).qualifiers());
            }
            Response r = rpc.call(Method.MULTI_GET, w.toByteArray(), List.of());
            List<List<KeyValue>> found = RowsCodec.readRows(r.paramReader(), r.cells(), r.callId());
            if (found.size() != items.length) {
                throw new IOException("MULTI_GET answered " + found.size() + " rows for " + items.length + " gets");
            }
            for (int k = 0; k < items.length; k++) {
                out[items[k]] = new Result(found.get(k));
            }
        });
        return out;
    }

    /** A scanner over {@code scan}'s rows; it fetches {@code scan.caching()} rows per call. */
    public ResultScanner getScanner(Scan scan) {
        return new ResultScanner(this, scan);
    }

    /**
     * One SCAN call's answer: its rows, the row to continue from inside the region (null when the
     * region's part of the range is done), and the region's end key (empty for the last region).
     */
    record ScanBatch(List<List<KeyValue>> rows, byte[] nextStartRow, byte[] regionEndKey) {
    }

    /**
     * One SCAN call to the region holding {@code startRow}, its stop row clipped to the region's end:
     * a scan goes region by region (HBase's scanners do too), and a region server in a cluster never
     * scans past the regions it holds.
     */
    ScanBatch scanBatch(byte[] startRow, byte[] stopRow, int caching) throws IOException {
        return caller().callRegion("SCAN", name, startRow, true, (rpc, region) -> {
            byte[] end = region.endKey();
            byte[] stop = Keys.regionEndsBefore(end, stopRow) ? end : stopRow;
            byte[] params = new ParamWriter().writeString(name).writeBytes(startRow).writeBytes(stop).writeInt(caching)
                .toByteArray();
            Response r = rpc.call(Method.SCAN, params, List.of());
            ParamReader in = r.paramReader();
            List<List<KeyValue>> rows = RowsCodec.readRows(in, r.cells(), r.callId());
            byte[] next = in.readBoolean() ? in.readBytes() : null;
            return new ScanBatch(rows, next, end);
        });
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
        // not idempotent: retried only when the failed attempt surely did not run (RetryState)
        return caller().callRegion("INCREMENT", name, row, false,
            (rpc, region) -> rpc.call(Method.INCREMENT, params, List.of()).paramReader().readLong());
    }

    /** DELETE: writes the delete's markers (through the WAL and memstore like a put). */
    public void delete(Delete delete) throws IOException {
        byte[] params = putParams(delete.getDurability());
        caller().callRegion("DELETE", name, delete.row(), true, (rpc, region) -> rpc.call(Method.DELETE, params,
            delete.cells()));
    }

    /**
     * Several deletes split per region server and sent in parallel, as {@link #put(List)}; with the
     * strongest durability of the batch.
     */
    public void delete(List<Delete> deletes) throws IOException {
        if (deletes.isEmpty()) {
            return;
        }
        byte[][] rows = new byte[deletes.size()][];
        List<Durability> durabilities = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            rows[i] = deletes.get(i).row();
            durabilities.add(deletes.get(i).getDurability());
        }
        byte[] params = putParams(strongest(durabilities));
        caller().callBatch("DELETE", name, rows, (rpc, items) -> {
            List<KeyValue> cells = new ArrayList<>();
            for (int i : items) {
                cells.addAll(deletes.get(i).cells());
            }
            rpc.call(Method.DELETE, params, cells);
        });
    }

    private RetryingCaller caller() {
        return connection.caller();
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
