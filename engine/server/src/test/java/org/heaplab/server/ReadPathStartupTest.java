package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A read-path or cache configuration mistake stops `bin/engine regionserver` with exit code 1 and one
 * line on stderr naming the key (never a stack trace): run as a child JVM like the script does.
 */
@Timeout(120)
class ReadPathStartupTest {
    private static String start(Path home, String properties, String maxDirect) throws Exception {
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf").resolve("engine-site.xml"), "<configuration>\n"
            + "<property><name>hbase.rootdir</name><value>" + home.resolve("data") + "</value></property>\n"
            + "<property><name>hbase.regionserver.port</name><value>0</value></property>\n" + properties
            + "</configuration>\n");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx128m", "-XX:MaxDirectMemorySize=" + maxDirect, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
            "-Dengine.home=" + home, "-Dengine.conf.dir=" + home.resolve("conf"), "-Dengine.log.dir=" + home.resolve("logs"),
            RegionServer.class.getName());
        pb.redirectOutput(home.resolve("stdout").toFile());
        pb.redirectError(home.resolve("stderr").toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(100, TimeUnit.SECONDS), "the server exits");
        String err = Files.readString(home.resolve("stderr"), StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue(), err);
        assertEquals(1, err.strip().lines().count(), "one line: " + err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
        return err;
    }

    private static String property(String key, String value) {
        return "<property><name>" + key + "</name><value>" + value + "</value></property>\n";
    }

    @ParameterizedTest
    @CsvSource({
        "heaplab.regionserver.read.path, no-copy, heaplab.regionserver.read.path must be heap-copy or zero-copy",
        "hbase.bucketcache.ioengine, file, hbase.bucketcache.ioengine must be offheap"})
    void aBadSwitchValueNamesTheKey(String key, String value, String expected, @TempDir Path home) throws Exception {
        String err = start(home, property(key, value), "64m");
        assertTrue(err.startsWith("ERROR: " + expected), err);
    }

    @Test
    void aBucketCacheLargerThanDirectMemoryNamesTheSizeKey(@TempDir Path home) throws Exception {
        String err = start(home, property("hbase.bucketcache.ioengine", "offheap") + property("hbase.bucketcache.size", "64"),
            "32m");
        assertTrue(err.startsWith("ERROR: ") && err.contains("hbase.bucketcache.size"), err);
    }
}
