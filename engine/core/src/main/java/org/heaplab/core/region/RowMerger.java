package org.heaplab.core.region;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.cell.KeyValue;

/**
 * Resolves the cells of one row gathered from several sources (memstore, snapshot, store files) into
 * what a get or a scan returns and what a major compaction keeps: the newest live Put of every column,
 * in cell order (families keep one version, HBase's VERSIONS=1).
 *
 * <p>Rules (HBase's): the newest version is the highest timestamp; between equal keys the newer source
 * wins. A Delete masks the Put of exactly its timestamp; DeleteColumn every version of its column up to
 * its timestamp; DeleteFamily every column of its family up to its timestamp; DeleteFamilyVersion every
 * column of its family at exactly its timestamp. A delete masks a Put of the same timestamp. Delete
 * markers themselves are never returned (and a major compaction drops them).
 *
 * <p>One pass is enough: family markers have an empty qualifier, so in cell order they come before every
 * Put they can mask (before all other columns of the family, and within the empty-qualifier column
 * before the Puts of the same or an older timestamp, since deletes sort before puts). {@link Resolver}
 * is that pass, cell by cell, for the scan's merging cursors; {@link #merge} sorts lists and runs it.
 *
 * <p>Works on any {@link Cell} (heap KeyValues, off-heap views): it never copies a cell.
 * Stateless; safe from any thread (a Resolver belongs to one read).
 */
public final class RowMerger {
    private RowMerger() {
    }

    private record Ranked<C extends Cell>(C cell, int rank) {
    }

    /**
     * @param sourcesNewestFirst the row's cells per source, newest source first; each list in cell order
     */
    public static <C extends Cell> List<C> merge(List<? extends List<? extends C>> sourcesNewestFirst) {
        return merge(sourcesNewestFirst, List.of());
    }

    /**
     * Like {@link #merge(List)}, keeping only the columns whose qualifier is in {@code qualifiers}
     * (empty: every column). Deletes apply whatever the filter.
     */
    public static <C extends Cell> List<C> merge(List<? extends List<? extends C>> sourcesNewestFirst,
                                                 List<byte[]> qualifiers) {
        List<? extends C> only = null;
        int nonEmpty = 0;
        for (List<? extends C> source : sourcesNewestFirst) {
            if (!source.isEmpty()) {
                only = source;
                nonEmpty++;
            }
        }
        if (nonEmpty <= 1) { // the common get: the row is in one source, already in order
            List<C> out = new ArrayList<>(only == null ? 0 : only.size());
            if (only != null) {
                Resolver r = new Resolver(qualifiers);
                for (C c : only) {
                    if (r.keep(c)) {
                        out.add(c);
                    }
                }
            }
            return out;
        }
        List<Ranked<C>> all = new ArrayList<>();
        for (int s = 0; s < sourcesNewestFirst.size(); s++) {
            for (C c : sourcesNewestFirst.get(s)) {
                all.add(new Ranked<>(c, s));
            }
        }
        all.sort((a, b) -> {
            int c = CellComparator.INSTANCE.compare(a.cell, b.cell);
            return c != 0 ? c : Integer.compare(a.rank, b.rank);
        });
        Resolver r = new Resolver(qualifiers);
        List<C> out = new ArrayList<>();
        for (Ranked<C> rc : all) {
            if (r.keep(rc.cell)) {
                out.add(rc.cell);
            }
        }
        return out;
    }

    /**
     * The merge as one pass over the cells of one row, fed in cell order with, among equal keys, the
     * newest source's cell first. {@link #keep} says whether a cell is part of the result.
     * Call {@link #reset} before each new row.
     */
    static final class Resolver {
        private final List<byte[]> qualifiers;
        private Cell family;
        private long familyDeleteTs;
        /** Made on the first marker of the kind: most rows have none (a get allocates nothing for them). */
        private Set<Long> familyVersionDeletes;
        private Cell column;
        private boolean columnDone;
        private long columnDeleteTs;
        private Set<Long> versionDeletes;

        /** @param qualifiers the columns to keep (empty: all) */
        Resolver(List<byte[]> qualifiers) {
            this.qualifiers = qualifiers;
            reset();
        }

        void reset() {
            family = null;
            column = null;
        }

        /** True when {@code c} is the newest live Put of its column (and a wanted column). */
        boolean keep(Cell c) {
            if (family == null || !CellComparator.sameFamily(family, c)) {
                family = c;
                familyDeleteTs = Long.MIN_VALUE;
                clear(familyVersionDeletes);
                column = null;
            }
            if (column == null || !CellComparator.sameColumn(column, c)) {
                column = c;
                columnDone = false;
                columnDeleteTs = Long.MIN_VALUE;
                clear(versionDeletes);
            }
            long ts = c.timestamp();
            KeyValue.Type type = c.type();
            switch (type) {
                case DELETE_FAMILY -> familyDeleteTs = Math.max(familyDeleteTs, ts); // even in a done column
                case DELETE_FAMILY_VERSION -> familyVersionDeletes = add(familyVersionDeletes, ts);
                case DELETE -> versionDeletes = add(versionDeletes, ts);
                case DELETE_COLUMN -> columnDeleteTs = Math.max(columnDeleteTs, ts);
                case PUT -> {
                    if (columnDone) {
                        return false; // an older version (VERSIONS=1)
                    }
                    boolean masked = ts <= familyDeleteTs || contains(familyVersionDeletes, ts)
                        || ts <= columnDeleteTs || contains(versionDeletes, ts);
                    if (!masked) {
                        columnDone = true;
                        return wanted(c);
                    }
                }
                default -> {
                    // MINIMUM/MAXIMUM are never stored
                }
            }
            return false;
        }

        private static Set<Long> add(Set<Long> set, long ts) {
            Set<Long> s = set == null ? new HashSet<>() : set;
            s.add(ts);
            return s;
        }

        private static boolean contains(Set<Long> set, long ts) {
            return set != null && !set.isEmpty() && set.contains(ts);
        }

        private static void clear(Set<Long> set) {
            if (set != null) {
                set.clear();
            }
        }

        private boolean wanted(Cell c) {
            if (qualifiers.isEmpty()) {
                return true;
            }
            for (byte[] q : qualifiers) {
                if (CellComparator.qualifierEquals(c, q)) {
                    return true;
                }
            }
            return false;
        }
    }
}
