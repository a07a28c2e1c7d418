package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.util.CrashPoints;
import org.junit.jupiter.api.Test;

/**
 * The registry of the keys the engine reads: the shipped files use none it would warn about, a typo'd key
 * is named, and no key literal of the engine's sources escapes it.
 */
class KnownKeysTest {
    private static final Path CONF = Path.of("..", "dist", "src", "conf");
    /** The modules a server's JVM runs: their keys are the ones engine-site.xml can set. */
    private static final List<String> MODULES = List.of("core", "rpc", "client", "server");
    /** A key inside a string literal (not a package name such as org.apache.hadoop.hbase.ipc). */
    private static final Pattern KEY_IN_LITERAL = Pattern.compile("(?<![\\w.])((?:hbase|heaplab)\\.[a-z][\\w.-]*\\w)");
    private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** Names that are JVM system properties (-D...), which engine-site.xml cannot set. */
    private static final Set<String> SYSTEM_PROPERTIES = Set.of("heaplab.leak.detection", "heaplab.rpc.leak.detection",
        CrashPoints.KEY);

    @Test
    void theShippedSiteAndEveryProfileUseOnlyKnownKeys() throws IOException {
        List<Path> files;
        try (Stream<Path> profiles = Files.list(CONF.resolve("profiles"))) {
            files = Stream.concat(Stream.of(CONF.resolve("engine-site.xml")), profiles.filter(p -> p.toString().endsWith(".xml")))
                .sorted().toList();
        }
        assertTrue(files.size() >= 3, "the site file and the profiles: " + files);
        for (Path file : files) {
            Configuration conf = new Configuration().addResource(file);
            assertEquals(List.of(), KnownKeys.unknown(conf), file + " sets keys the engine would warn about");
        }
    }

    @Test
    void aTypoedKeyIsNamedAndKnownOrIgnoredKeysAreNot() {
        Configuration conf = new Configuration()
            .set("hbase.rpc.server.iml", "SimpleRpcServer")        // the typo
            .set("heaplab.regionserver.read.pth", "zero-copy")      // another
            .set("hbase.rpc.server.impl", "SimpleRpcServer")       // known
            .set("hbase.ipc.server.reservoir.enabled", "true")     // HBase's, accepted and ignored
            .set("hfile.block.cache.size", "0.4")                  // known, and outside the checked prefixes
            .set("dfs.replication", "3")                           // outside the checked prefixes
            .set("heaplab.leak.detection", "true");                // a system property, not a key

        assertEquals(List.of("hbase.rpc.server.iml", "heaplab.leak.detection", "heaplab.regionserver.read.pth"),
            KnownKeys.unknown(conf));
    }

    @Test
    void everySwitchKeyOfTheArchitectureTableIsKnown() {
        for (String key : List.of("hbase.rpc.server.impl", "hbase.server.allocator.pool.enabled", "heaplab.rpc.cell.decoder",
            "heaplab.regionserver.read.path", "hbase.bucketcache.ioengine", "hbase.hregion.memstore.mslab.enabled",
            "hbase.regionserver.offheap.global.memstore.size", "hbase.hregion.compacting.memstore.type",
            "hbase.hregion.mvcc.preassign", "heaplab.regionserver.write.path")) {
            assertTrue(KnownKeys.all().contains(key), key);
        }
        assertFalse(KnownKeys.all().contains("offheap"), "values are not keys");
    }

    /** A key the code reads but whose constant lives outside KnownKeys.HOLDERS would be warned about: none is. */
    @Test
    void everyKeyLiteralOfTheServersSourcesIsKnown() throws IOException {
        Set<String> missing = new TreeSet<>();
        int scanned = 0;
        for (String module : MODULES) {
            List<Path> sources;
            try (Stream<Path> walk = Files.walk(Path.of("..", module, "src", "main", "java"))) {
                sources = walk.filter(p -> p.toString().endsWith(".java")).toList();
            }
            for (Path source : sources) {
                scanned++;
                for (String line : Files.readAllLines(source)) {
                    String code = line.strip();
                    if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")) {
                        continue; // documentation may name HBase keys the engine does not read
                    }
                    Matcher literal = LITERAL.matcher(line);
                    while (literal.find()) {
                        Matcher key = KEY_IN_LITERAL.matcher(literal.group(1));
                        while (key.find()) {
                            String k = key.group(1);
                            if (!KnownKeys.all().contains(k) && !SYSTEM_PROPERTIES.contains(k)) {
                                missing.add(k + " (" + source.getFileName() + ")");
                            }
                        }
                    }
                }
            }
        }
        assertTrue(scanned > 100, "the sources were found: " + scanned);
        assertEquals(Set.of(), missing, "key literals whose constants are not in KnownKeys.HOLDERS");
    }
}
