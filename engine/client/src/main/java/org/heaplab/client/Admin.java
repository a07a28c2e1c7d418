package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.Method;
import org.heaplab.rpc.ParamReader;
import org.heaplab.rpc.ParamWriter;
import org.heaplab.rpc.RegionListCodec;
import org.heaplab.rpc.ServerStatus;

/** Table management and server information over a {@link Connection}. Thread safe. */
public final class Admin {
    private static final byte[] NONE = new byte[0];
    private final Connection connection;

    Admin(Connection connection) {
        this.connection = connection;
    }

    /**
     * Creates {@code desc}'s table split at {@code splitKeys} (sorted, distinct; empty for one region),
     * with its default durability and its family's encoding, bloom filter and in-memory flag (stored
     * with the table).
     */
    public void createTable(TableDescriptor desc, byte[][] splitKeys) throws IOException {
        ParamWriter w = new ParamWriter().writeString(desc.name()).writeBytes(desc.family())
            .writeString(desc.compression().name()).writeInt(splitKeys.length);
        for (byte[] k : splitKeys) {
            w.writeBytes(k);
        }
        w.writeString(desc.durability().name());
        // the family's store-file options (issue 4)
        w.writeString(desc.encoding().name()).writeString(desc.bloom().name()).writeBoolean(desc.inMemory());
        connection.call(Method.CREATE_TABLE, w.toByteArray(), List.of());
    }

    public void dropTable(String table) throws IOException {
        call(Method.DROP_TABLE, table);
    }

    public boolean tableExists(String table) throws IOException {
        return call(Method.TABLE_EXISTS, table).readBoolean();
    }

    /** Flushes every memstore of the table; returns when the store files are written. */
    public void flush(String table) throws IOException {
        call(Method.FLUSH, table);
    }

    /** Merges each region's store files into one; returns when done. */
    public void majorCompact(String table) throws IOException {
        call(Method.MAJOR_COMPACT, table);
    }

    public List<RegionInfo> regions(String table) throws IOException {
        return RegionListCodec.read(call(Method.LIST_REGIONS, table));
    }

    public List<String> tables() throws IOException {
        ParamReader r = connection.call(Method.LIST_TABLES, NONE, List.of()).paramReader();
        int n = r.readCount(1_000_000);
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add(r.readString());
        }
        return names;
    }

    public ServerStatus status() throws IOException {
        return ServerStatus.read(connection.call(Method.STATUS, NONE, List.of()).paramReader());
    }

    /** The server's metrics as one JSON object; {@code gc} asks it to collect garbage before measuring. */
    public String metrics(boolean gc) throws IOException {
        return connection.call(Method.METRICS, new ParamWriter().writeBoolean(gc).toByteArray(), List.of()).paramReader()
            .readString();
    }

    private ParamReader call(Method method, String table) throws IOException {
        return connection.call(method, new ParamWriter().writeString(table).toByteArray(), List.of()).paramReader();
    }
}
