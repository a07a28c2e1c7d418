package org.heaplab.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.heaplab.rpc.protocol.RegionLocation;

/**
 * Splits a batch (puts, gets, deletes) by the region server holding each row, so each server gets
 * one call with its part and the parts can travel in parallel (HBase's AsyncProcess does the same
 * per server). Items keep their request order inside each group; groups come in the order their
 * first item appears.
 */
final class ServerBatches {
    /** Finds the region of a row (the location cache, or LOCATE). */
    interface Locate {
        RegionLocation locate(byte[] row) throws IOException;
    }

    /**
     * The items for one server: indexes into the request.
     *
     * @param online false when LOCATE reports the server down: the group is not sent, it waits and relocates
     */
    record Group(String server, boolean online, int[] items) {
    }

    private ServerBatches() {
    }

    /** Groups the items {@code pending} (indexes into {@code rows}) by server. */
    static List<Group> group(int[] pending, byte[][] rows, Locate locate) throws IOException {
        Map<String, List<Integer>> byServer = new LinkedHashMap<>();
        Map<String, Boolean> online = new LinkedHashMap<>();
        for (int i : pending) {
            RegionLocation l = locate.locate(rows[i]);
            byServer.computeIfAbsent(l.server(), s -> new ArrayList<>()).add(i);
            online.merge(l.server(), l.serverOnline(), Boolean::logicalAnd);
        }
        List<Group> groups = new ArrayList<>(byServer.size());
        byServer.forEach((server, items) -> groups.add(
            new Group(server, online.get(server), items.stream().mapToInt(Integer::intValue).toArray())));
        return groups;
    }
}
