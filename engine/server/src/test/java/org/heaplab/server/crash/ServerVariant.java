package org.heaplab.server.crash;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.heaplab.core.conf.Configuration;

/**
 * One server configuration a kill runs on: a profile as shipped (hbase1-onheap or hbase2-offheap) with one
 * write path (legacy or staged), and sizes small enough that flushes and WAL rolls happen every few
 * hundred puts, so that a crash point inside them is reached within seconds.
 */
record ServerVariant(String profile, String writePath) {
    static final List<ServerVariant> ALL = List.of(new ServerVariant("hbase1-onheap", "legacy"),
        new ServerVariant("hbase2-offheap", "staged"), new ServerVariant("hbase1-onheap", "staged"),
        new ServerVariant("hbase2-offheap", "legacy"));

    /** The profiles as shipped (the test runs in engine/server). */
    private static final Path PROFILES = Path.of("..", "dist", "src", "conf", "profiles");

    /** Writes {@code home}/conf/engine-site.xml: the profile, then the test's overrides. */
    void writeSite(Path home, String host, int port) throws IOException {
        Path profileFile = PROFILES.resolve(profile + ".xml");
        assertTrue(Files.isRegularFile(profileFile), "profile at " + profileFile.toAbsolutePath());
        Configuration conf = new Configuration().addResource(profileFile)
            .set("hbase.regionserver.hostname", host)
            .set("hbase.regionserver.port", String.valueOf(port))
            .set("hbase.regionserver.handler.count", "8") // the profiles' 30, on two shared cores
            .set("hbase.hregion.memstore.flush.size", "65536") // a flush every few hundred puts per region
            .set("hbase.regionserver.logroll.size", "32768") // a WAL roll every hundred or so puts
            .set("heaplab.regionserver.write.path", writePath)
            // the child has 256 MB of heap and of direct memory: the off-heap profile's 128 MB bucket cache and
            // 2 MB MSLAB chunks scaled down; what they do is unchanged
            .set("hbase.hregion.memstore.mslab.chunksize", "65536")
            .set("hbase.hregion.memstore.mslab.max.allocation", "16384");
        if (conf.get("hbase.bucketcache.size") != null) {
            conf.set("hbase.bucketcache.size", "32");
        }
        Files.createDirectories(home.resolve("conf"));
        try (Writer w = Files.newBufferedWriter(home.resolve("conf/engine-site.xml"), StandardCharsets.UTF_8)) {
            conf.writeXml(w);
        }
    }

    @Override
    public String toString() {
        return profile + "/" + writePath;
    }
}
