package org.heaplab.rpc.protocol;

import java.util.Arrays;

/**
 * Where one region of a table is served: the LOCATE answer's unit, cached by clients. A region holds the
 * rows in [startKey, endKey); an empty startKey is the first region, an empty endKey the last.
 *
 * @param server "host:port" of the region server's RPC address
 * @param serverOnline false when the master has marked that server down (it stopped heartbeating):
 *     calls would fail until it comes back and replays its WAL
 */
public record RegionLocation(String table, String encodedName, byte[] startKey, byte[] endKey, String server,
                             boolean serverOnline) {

    /** True when {@code row} falls in [startKey, endKey). */
    public boolean contains(byte[] row) {
        return Arrays.compareUnsigned(startKey, row) <= 0
            && (endKey.length == 0 || Arrays.compareUnsigned(row, endKey) < 0);
    }

    /** host of {@link #server}. */
    public String host() {
        return server.substring(0, server.lastIndexOf(':'));
    }

    /** port of {@link #server}. */
    public int port() {
        return Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
    }
}
