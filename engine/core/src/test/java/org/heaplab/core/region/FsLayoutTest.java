package org.heaplab.core.region;

import static org.heaplab.core.TestKv.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FsLayoutTest {
    @TempDir
    Path dir;

    @Test
    void tableDescriptorRoundTrips() throws Exception {
        TableDescriptor d = new TableDescriptor("Test_Table-1", new byte[] {'i', 0, (byte) 0xff}, Compression.SNAPPY);
        FsLayout.writeTableDescriptor(dir, d);
        TableDescriptor back = FsLayout.readTableDescriptor(dir);
        assertEquals(d.name(), back.name());
        assertArrayEquals(d.family(), back.family());
        assertEquals(Compression.SNAPPY, back.compression());
        try (var s = Files.list(dir)) {
            assertEquals(1, s.count(), "no temp file left behind");
        }
    }

    @Test
    void regionInfoRoundTrips() throws Exception {
        FsLayout.RegionMeta m = new FsLayout.RegionMeta("T", "abc123", b("row25"), new byte[] {(byte) 0x80});
        FsLayout.writeRegionInfo(dir, m);
        FsLayout.RegionMeta back = FsLayout.readRegionInfo(dir);
        assertEquals("abc123", back.encodedName());
        assertArrayEquals(m.startKey(), back.startKey());
        assertArrayEquals(m.endKey(), back.endKey());
    }

    @Test
    void rootDirAcceptsFileUrls() {
        assertEquals(Path.of("/x/y"), FsLayout.rootDir(new Configuration().set(StorageKeys.ROOT_DIR, "file:///x/y")));
        assertEquals(Path.of("/x/y"), FsLayout.rootDir(new Configuration().set(StorageKeys.ROOT_DIR, "/x/y")));
        assertEquals("info0", FsLayout.familyDirName(b("info0")));
        assertEquals("%2e2e", FsLayout.familyDirName(b("..")));
    }
}
