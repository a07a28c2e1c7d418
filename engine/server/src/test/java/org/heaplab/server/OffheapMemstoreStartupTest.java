package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A region server whose off-heap memstore pool is larger than the JVM's direct memory limit must not
 * start, and must say why in one line naming the key (not an OutOfMemoryError stack trace).
 */
@Timeout(60)
class OffheapMemstoreStartupTest {
    @Test
    void aPoolLargerThanMaxDirectMemoryFailsStartUpWithOneLineNamingTheKey(@TempDir Path home) throws Exception {
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf").resolve("engine-site.xml"), "<configuration>\n"
            + "<property><name>hbase.rootdir</name><value>" + home.resolve("data") + "</value></property>\n"
            + "<property><name>hbase.regionserver.port</name><value>0</value></property>\n"
            + "<property><name>hbase.hregion.memstore.mslab.enabled</name><value>true</value></property>\n"
            + "<property><name>hbase.regionserver.offheap.global.memstore.size</name><value>64</value></property>\n"
            + "</configuration>\n");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx128m", "-XX:MaxDirectMemorySize=16m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
            "-Dengine.home=" + home, "-Dengine.conf.dir=" + home.resolve("conf"), "-Dengine.log.dir=" + home.resolve("logs"),
            RegionServer.class.getName());
        pb.redirectOutput(home.resolve("stdout").toFile());
        pb.redirectError(home.resolve("stderr").toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(50, TimeUnit.SECONDS), "the server exits");
        String err = read(home.resolve("stderr"));
        assertEquals(1, p.exitValue(), err);
        assertTrue(err.startsWith("ERROR: hbase.regionserver.offheap.global.memstore.size asks for 64 MB of direct memory"), err);
        assertEquals(1, err.strip().lines().count(), "one line: " + err);
        assertFalse(err.contains("at org.heaplab"), "no stack trace: " + err);
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
