package org.heaplab.rpc.protocol;

/**
 * The STATUS call's answer: who is serving and how loaded it is.
 *
 * <p>Wire order (params): string server, string rpcServer, long uptimeMs, int tables, int regions,
 * int handlers, long heapUsedBytes, long heapMaxBytes.
 */
public record ServerStatus(String server, String rpcServer, long uptimeMs, int tables, int regions,
                           int handlers, long heapUsedBytes, long heapMaxBytes) {

    public void write(ParamWriter w) {
        w.writeString(server).writeString(rpcServer).writeLong(uptimeMs).writeInt(tables).writeInt(regions)
            .writeInt(handlers).writeLong(heapUsedBytes).writeLong(heapMaxBytes);
    }

    public static ServerStatus read(ParamReader r) throws MalformedFrameException {
        return new ServerStatus(r.readString(), r.readString(), r.readLong(), r.readInt(), r.readInt(), r.readInt(),
            r.readLong(), r.readLong());
    }
}
