package org.heaplab.server;

import java.nio.file.Files;
import java.nio.file.Path;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.region.OnlineRegions;
import org.junit.jupiter.api.Assumptions;

/** Skips a test, with a clear message, while core's OnlineRegions is still the contract stub. */
public final class StorageAssumption {
    private static Boolean available;

    private StorageAssumption() {
    }

    public static synchronized void assumeStorage() throws Exception {
        if (available == null) {
            Path dir = Files.createTempDirectory("heaplab-probe");
            try (OnlineRegions r = OnlineRegions.open(new Configuration().set("hbase.rootdir", dir.toString()))) {
                available = true;
            } catch (UnsupportedOperationException e) {
                available = false;
            } finally {
                AtomicFiles.deleteRecursively(dir); // the probe's region files, left in /tmp by every build otherwise
            }
        }
        Assumptions.assumeTrue(available, "skipped: heaplab-core's OnlineRegions is still a stub (UnsupportedOperationException); "
            + "install the storage engineer's core (mvn -o install -pl core -DskipTests) to run it");
    }
}
