package org.heaplab.core.region;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.Cells;
import org.heaplab.core.cell.KeyValue;

/**
 * Resolves the cells of one row gathered from several sources (memstore, snapshot, store files) into
 * what a get returns and what a major compaction keeps: the newest live Put of every column, in cell order.
 *
 * <p>Rules (HBase's): the newest version is the highest timestamp; between equal keys the newer source
 * wins. A Delete masks the Put of exactly its timestamp; DeleteColumn every version of its column up to
 * its timestamp; DeleteFamily every column of its family up to its timestamp; DeleteFamilyVersion every
 * column of its family at exactly its timestamp. A delete masks a Put of the same timestamp. Delete
 * markers themselves are never returned (and a major compaction drops them).
 *
 * <p>Stateless; safe from any thread.
 */
public final class RowMerger {
    private RowMerger() {
    }

    private record Ranked(KeyValue kv, int rank) {
    }

    private static final Comparator<Ranked> ORDER = (a, b) -> {
        int c = CellComparator.INSTANCE.compare(a.kv, b.kv);
        return c != 0 ? c : Integer.compare(a.rank, b.rank);
    };

    /**
     * @param sourcesNewestFirst the row's cells per source, newest source first; each list in cell order
     */
    public static List<KeyValue> merge(List<List<KeyValue>> sourcesNewestFirst) {
        List<Ranked> all = new ArrayList<>();
        for (int s = 0; s < sourcesNewestFirst.size(); s++) {
            for (KeyValue kv : sourcesNewestFirst.get(s)) {
                all.add(new Ranked(kv, s));
            }
        }
        all.sort(ORDER);
        // pass 1: family-level deletes
        Map<String, Long> familyDeleteTs = new HashMap<>();
        Map<String, Set<Long>> familyVersionDeletes = new HashMap<>();
        for (Ranked r : all) {
            KeyValue.Type t = r.kv.type();
            if (t == KeyValue.Type.DELETE_FAMILY) {
                familyDeleteTs.merge(familyKey(r.kv), r.kv.timestamp(), Math::max);
            } else if (t == KeyValue.Type.DELETE_FAMILY_VERSION) {
                familyVersionDeletes.computeIfAbsent(familyKey(r.kv), k -> new HashSet<>()).add(r.kv.timestamp());
            }
        }
        // pass 2: per column, timestamps descending, deletes before puts of the same timestamp
        List<KeyValue> out = new ArrayList<>();
        KeyValue column = null;
        boolean columnDone = false;
        long columnDeleteTs = Long.MIN_VALUE;
        Set<Long> versionDeletes = new HashSet<>();
        for (Ranked r : all) {
            KeyValue kv = r.kv;
            if (column == null || !Cells.sameColumn(column, kv)) {
                column = kv;
                columnDone = false;
                columnDeleteTs = Long.MIN_VALUE;
                versionDeletes.clear();
            }
            if (columnDone) {
                continue;
            }
            long ts = kv.timestamp();
            switch (kv.type()) {
                case DELETE -> versionDeletes.add(ts);
                case DELETE_COLUMN -> columnDeleteTs = Math.max(columnDeleteTs, ts);
                case PUT -> {
                    String fam = familyKey(kv);
                    boolean masked = ts <= familyDeleteTs.getOrDefault(fam, Long.MIN_VALUE)
                        || familyVersionDeletes.getOrDefault(fam, Set.of()).contains(ts)
                        || ts <= columnDeleteTs
                        || versionDeletes.contains(ts);
                    if (!masked) {
                        out.add(kv);
                        columnDone = true;
                    }
                }
                default -> {
                    // family-level markers were handled in pass 1; MINIMUM/MAXIMUM never get stored
                }
            }
        }
        return out;
    }

    private static String familyKey(KeyValue kv) {
        return new String(kv.getBuffer(), kv.familyOffset(), kv.familyLength(), java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
