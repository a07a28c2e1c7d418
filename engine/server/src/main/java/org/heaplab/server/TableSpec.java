package org.heaplab.server;

import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;

/**
 * CREATE_TABLE's params: the table descriptor and the split keys. Read by the standalone region server,
 * the master (which keeps them) and OPEN_REGIONS (which starts with them); written by the master when it
 * forwards them. The trailing durability / encoding / bloom / inMemory are optional on the wire (older
 * clients); {@link #write} always writes them.
 */
public record TableSpec(TableDescriptor descriptor, byte[][] splitKeys) {
    private static final int MAX_SPLITS = 100_000;

    public String name() {
        return descriptor.name();
    }

    /** The number of regions the split keys define. */
    public int regionCount() {
        return splitKeys.length + 1;
    }

    public byte[] startKey(int index) {
        return index == 0 ? new byte[0] : splitKeys[index - 1];
    }

    public byte[] endKey(int index) {
        return index == splitKeys.length ? new byte[0] : splitKeys[index];
    }

    /**
     * Reads CREATE_TABLE's params. With {@code all}, the optional trailing params must be present
     * (OPEN_REGIONS, where more params follow them).
     */
    public static TableSpec read(ParamReader in, boolean all) throws MalformedFrameException {
        String name = in.readString();
        byte[] family = in.readBytes();
        Compression compression = Compression.parse(in.readString());
        int n = in.readCount(MAX_SPLITS);
        byte[][] splits = new byte[n][];
        for (int i = 0; i < n; i++) {
            splits[i] = in.readBytes();
        }
        // string durability after the split keys; absent from older clients: USE_DEFAULT
        Durability durability = all || in.hasRemaining() ? Durability.parse(in.readString()) : Durability.USE_DEFAULT;
        // string encoding, string bloom, boolean inMemory; absent: NONE, ROW, false (HBase's defaults)
        DataBlockEncoding encoding = all || in.hasRemaining() ? DataBlockEncoding.parse(in.readString())
            : DataBlockEncoding.NONE;
        BloomType bloom = all || in.hasRemaining() ? BloomType.parse(in.readString()) : BloomType.ROW;
        boolean inMemory = (all || in.hasRemaining()) && in.readBoolean();
        return new TableSpec(new TableDescriptor(name, family, compression, durability, encoding, bloom, inMemory),
            splits);
    }

    /** Writes CREATE_TABLE's params, every optional one included. */
    public ParamWriter write(ParamWriter w) {
        TableDescriptor d = descriptor;
        w.writeString(d.name()).writeBytes(d.family()).writeString(d.compression().name()).writeInt(splitKeys.length);
        for (byte[] k : splitKeys) {
            w.writeBytes(k);
        }
        return w.writeString(d.durability().name()).writeString(d.encoding().name()).writeString(d.bloom().name())
            .writeBoolean(d.inMemory());
    }
}
