package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.rpc.Method;
import org.heaplab.rpc.ParamWriter;

/**
 * Reads and writes one table over a {@link Connection}. A put returns once the server has the
 * cells in its synced WAL. Thread safe (holds no state beyond its name).
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

    public void put(Put put) throws IOException {
        connection.call(Method.PUT, new ParamWriter().writeString(name).toByteArray(), put.cells());
    }

    /** Sends all puts in one call (one PUT request, one WAL sync on the server). */
    public void put(List<Put> puts) throws IOException {
        List<KeyValue> cells = new ArrayList<>();
        for (Put p : puts) {
            cells.addAll(p.cells());
        }
        connection.call(Method.PUT, new ParamWriter().writeString(name).toByteArray(), cells);
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
