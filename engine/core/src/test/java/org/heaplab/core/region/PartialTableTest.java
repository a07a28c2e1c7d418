package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A region server in cluster mode holds only some regions of a table (OPEN_REGIONS): rows in the gaps are
 * refused before anything is applied, scans stop at a gap, names are derived, re-creation is idempotent.
 */
@Timeout(60)
class PartialTableTest {
    static final byte[] FAMILY = b("info0");
    static final byte[][] SPLITS = {b("row25"), b("row50"), b("row75")};
    static final long CREATED = 1_700_000_000_000L;
    static final TableDescriptor DESC = new TableDescriptor("T", FAMILY, Compression.NONE);

    @TempDir
    Path root;

    Configuration conf() {
        return new Configuration().set(StorageKeys.ROOT_DIR, "file://" + root).set(StorageKeys.BLOCK_CACHE_BYTES,
            String.valueOf(4 << 20));
    }

    static KeyValue put(String row, String value) {
        return KeyValue.create(b(row), FAMILY, b("q"), 1, KeyValue.Type.PUT, b(value));
    }

    /** Regions 1 ([row25, row50)) and 3 ([row75, end)) of four. */
    static OnlineRegions partial(Configuration conf) throws IOException {
        OnlineRegions o = OnlineRegions.open(conf);
        o.createTable(DESC, SPLITS, CREATED, new int[] {3, 1});
        return o;
    }

    @Test
    void holdsOnlyTheNamedRegionsWithDerivedNames() throws IOException {
        try (OnlineRegions o = partial(conf())) {
            Set<String> names = o.regions("T").stream().map(RegionInfo::encodedName).collect(Collectors.toSet());
            assertEquals(Set.of(RegionNames.encodedName("T", b("row25"), CREATED, 1),
                RegionNames.encodedName("T", b("row75"), CREATED, 3)), names);
        }
    }

    @Test
    void rowsInAGapAreRefusedAndNothingIsApplied() throws IOException {
        try (OnlineRegions o = partial(conf())) {
            o.put("T", List.of(put("row30", "a"), put("row80", "b"))).join();
            assertEquals(1, OwnedRows.get(o, "T", b("row30")).size());
            assertThrows(NotServingRegionException.class, () -> o.put("T", List.of(put("row10", "x"))));
            assertThrows(NotServingRegionException.class, () -> o.put("T", List.of(put("row50", "x"))));
            // a batch with one row in a gap: refused whole, the held row not written either
            assertThrows(NotServingRegionException.class, () -> o.put("T", List.of(put("row31", "y"), put("row60", "y"))));
            assertTrue(OwnedRows.get(o, "T", b("row31")).isEmpty());
            assertThrows(NotServingRegionException.class, () -> OwnedRows.get(o, "T", b("row00")));
            try (ReadScope scope = new ReadScope()) {
                assertThrows(NotServingRegionException.class,
                    () -> o.multiGet("T", List.of(b("row30"), b("row55")), scope));
            }
        }
    }

    @Test
    void aScanStopsAtAGapAndNamesWhereToGoOn() throws IOException {
        try (OnlineRegions o = partial(conf())) {
            o.put("T", List.of(put("row30", "a"), put("row40", "a"), put("row80", "b"))).join();
            try (ReadScope scope = new ReadScope()) {
                ScanBatch first = o.scan("T", b("row25"), new byte[0], 100, scope);
                assertEquals(2, first.rows().size());
                assertArrayEquals(b("row50"), first.nextStartRow(), "the next region is another server's");
                assertThrows(NotServingRegionException.class, () -> o.scan("T", b("row50"), new byte[0], 100, scope));
                ScanBatch last = o.scan("T", b("row75"), new byte[0], 100, scope);
                assertEquals(1, last.rows().size());
                assertNull(last.nextStartRow());
            }
        }
    }

    @Test
    void theSameOpenAgainIsANoOpAnotherIsRefused() throws IOException {
        try (OnlineRegions o = partial(conf())) {
            o.put("T", List.of(put("row30", "a"))).join();
            o.createTable(DESC, SPLITS, CREATED, new int[] {1, 3});
            assertEquals(1, OwnedRows.get(o, "T", b("row30")).size(), "the repeated open kept the data");
            assertThrows(TableExistsException.class, () -> o.createTable(DESC, SPLITS, CREATED + 1, new int[] {1, 3}));
            assertThrows(TableExistsException.class, () -> o.createTable(DESC, SPLITS, CREATED, new int[] {1}));
        }
    }

    @Test
    void badIndexesAreRefused() throws IOException {
        try (OnlineRegions o = OnlineRegions.open(conf())) {
            assertThrows(IllegalArgumentException.class, () -> o.createTable(DESC, SPLITS, CREATED, new int[] {4}));
            assertThrows(IllegalArgumentException.class, () -> o.createTable(DESC, SPLITS, CREATED, new int[] {1, 1}));
            assertThrows(IllegalArgumentException.class, () -> o.createTable(DESC, SPLITS, CREATED, new int[0]));
        }
    }

    @Test
    void reopeningServesTheSameRegionsAndReplaysTheWal() throws IOException {
        Configuration conf = conf();
        OnlineRegions o = partial(conf);
        o.put("T", List.of(put("row30", "a"), put("row90", "b"))).join();
        o.close();
        try (OnlineRegions again = OnlineRegions.open(conf)) {
            assertEquals(2, again.regions("T").size());
            assertEquals(1, OwnedRows.get(again, "T", b("row90")).size());
            assertThrows(NotServingRegionException.class, () -> OwnedRows.get(again, "T", b("row60")));
        }
    }
}
