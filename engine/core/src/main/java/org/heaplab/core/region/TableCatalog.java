package org.heaplab.core.region;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.heaplab.core.io.StorageConstants;
import org.heaplab.core.wal.Mvcc;
import org.heaplab.core.wal.Wal;

/**
 * The tables online on one region server, by name: opening them from disk, creating and dropping them. The
 * data path ({@link OnlineRegions}) looks a table up here and works on its regions.
 *
 * <p>Thread safety: lookups may run on any thread at once (a ConcurrentHashMap of immutable
 * {@link OnlineTable}s); creation and removal are serialized by {@code ddlLock}, which
 * {@link OnlineRegions#close} also takes so that no table appears while the server closes.
 */
final class TableCatalog {
    private final FsLayout layout;
    private final RegionServices services;
    private final Supplier<Wal> wal; // null until the WAL is replayed and opened
    private final Supplier<Mvcc> mvccs;
    private final Object ddlLock;
    private final ConcurrentHashMap<String, OnlineTable> tables = new ConcurrentHashMap<>();

    TableCatalog(FsLayout layout, RegionServices services, Supplier<Wal> wal, Supplier<Mvcc> mvccs, Object ddlLock) {
        this.layout = layout;
        this.services = services;
        this.wal = wal;
        this.mvccs = mvccs;
        this.ddlLock = ddlLock;
    }

    /** Opens every table directory under the data directory (at start-up, before the WAL replay). */
    void load() throws IOException {
        try (Stream<Path> s = Files.list(layout.dataDir)) {
            for (Path tableDir : s.filter(Files::isDirectory).filter(p -> !p.getFileName().toString().startsWith("."))
                .sorted().toList()) {
                TableDescriptor desc = FsLayout.readTableDescriptor(tableDir);
                tables.put(desc.name(), new OnlineTable(desc, openRegions(tableDir, desc)));
            }
        }
    }

    private List<Region> openRegions(Path tableDir, TableDescriptor desc) throws IOException {
        List<Region> regions = new ArrayList<>();
        try (Stream<Path> s = Files.list(tableDir)) {
            for (Path dir : s.filter(p -> Files.isRegularFile(p.resolve(StorageConstants.REGION_INFO_FILE))).toList()) {
                Region r = Region.open(dir, desc, services);
                r.attachWal(wal.get(), mvccs.get());
                regions.add(r);
            }
        }
        if (regions.isEmpty()) {
            throw new IOException("table directory " + tableDir + " holds no regions");
        }
        return regions;
    }

    /** See {@link OnlineRegions#createTable(TableDescriptor, byte[][], long, int[])}. */
    void create(TableDescriptor desc, byte[][] splitKeys, long createdMs, int[] regionIndexes) throws IOException {
        TableFiles.checkSplitKeys(splitKeys);
        TableFiles.checkRegionIndexes(regionIndexes, splitKeys.length + 1);
        synchronized (ddlLock) {
            OnlineTable existing = tables.get(desc.name());
            if (existing != null && sameRegions(existing, TableFiles.encodedNames(desc.name(), splitKeys, createdMs,
                regionIndexes))) {
                return; // the same OPEN_REGIONS again (the master retried)
            }
            if (existing != null || Files.exists(layout.tableDir(desc.name()))) {
                throw new TableExistsException(desc.name());
            }
            Path dir = TableFiles.create(layout, desc, splitKeys, createdMs, regionIndexes);
            tables.put(desc.name(), new OnlineTable(desc, openRegions(dir, desc)));
        }
    }

    private static boolean sameRegions(OnlineTable t, Set<String> encodedNames) {
        return t.regions().stream().map(Region::encodedName).collect(Collectors.toSet()).equals(encodedNames);
    }

    /** Takes the table offline, drops its regions and their files. */
    void drop(String table) throws IOException {
        synchronized (ddlLock) {
            OnlineTable t = tables.remove(table);
            if (t == null) {
                throw new TableNotFoundException(table);
            }
            for (Region r : t.regions()) {
                r.drop();
            }
            services.queryCache().invalidateTable(table);
            TableFiles.delete(layout, table);
        }
    }

    boolean exists(String table) {
        return tables.containsKey(table);
    }

    /** Table names, sorted. */
    List<String> names() {
        return tables.keySet().stream().sorted().toList();
    }

    OnlineTable get(String name) throws TableNotFoundException {
        OnlineTable t = tables.get(name);
        if (t == null) {
            throw new TableNotFoundException(name);
        }
        return t;
    }

    /** Every region of every table. */
    Stream<Region> allRegions() {
        return tables.values().stream().flatMap(t -> t.regions().stream());
    }
}
