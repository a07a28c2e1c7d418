package org.heaplab.server.master;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.heaplab.core.region.RegionNames;
import org.heaplab.server.TableSpec;

/**
 * A table as the master keeps it: what CREATE_TABLE asked (descriptor and split keys), when it was created
 * (the encoded region names derive from it) and which region server serves each region, by region index.
 * Immutable.
 */
record AssignedTable(TableSpec spec, long createdMs, List<String> servers) {
    AssignedTable {
        servers = List.copyOf(servers);
        if (servers.size() != spec.regionCount()) {
            throw new IllegalArgumentException(spec.regionCount() + " regions but " + servers.size() + " assignments");
        }
    }

    String name() {
        return spec.name();
    }

    String encodedName(int index) {
        return RegionNames.encodedName(spec.name(), spec.startKey(index), createdMs, index);
    }

    /** Region indexes per server, servers in name order, indexes ascending. */
    Map<String, List<Integer>> regionsByServer() {
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        for (String s : new TreeSet<>(servers)) {
            out.put(s, new ArrayList<>());
        }
        for (int i = 0; i < servers.size(); i++) {
            out.get(servers.get(i)).add(i);
        }
        return out;
    }

    /** Round robin over {@code online} (sorted by name): region i goes to server i mod n. */
    static AssignedTable roundRobin(TableSpec spec, long createdMs, List<String> online) {
        List<String> sorted = online.stream().sorted().toList();
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < spec.regionCount(); i++) {
            servers.add(sorted.get(i % sorted.size()));
        }
        return new AssignedTable(spec, createdMs, servers);
    }
}
