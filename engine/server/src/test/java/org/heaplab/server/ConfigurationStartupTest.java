package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.heaplab.server.master.Master;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * "Configuration you can trust", with the real server mains in child JVMs (as bin/engine runs them): a
 * configuration directory that was given but is missing, or holds no engine-site.xml, stops the region
 * server and the master with one line naming it (never a stack trace, nothing served); a key the engine does
 * not know is named in one WARN line at start-up and the server still serves.
 */
@Timeout(120)
class ConfigurationStartupTest {
    private record Exit(int code, String stdout, String stderr) {
    }

    /** Runs {@code main} with {@code properties} and {@code env} in {@code cwd} and waits for it to exit. */
    private static Exit run(Class<?> main, Path cwd, Map<String, String> env, String... properties) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx64m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(properties));
        cmd.add(main.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        pb.environment().remove("ENGINE_CONF_DIR");
        pb.environment().putAll(env);
        pb.redirectOutput(cwd.resolve("stdout").toFile());
        pb.redirectError(cwd.resolve("stderr").toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("the process did not exit: " + Files.readString(cwd.resolve("stdout")));
        }
        return new Exit(p.exitValue(), Files.readString(cwd.resolve("stdout"), StandardCharsets.UTF_8),
            Files.readString(cwd.resolve("stderr"), StandardCharsets.UTF_8));
    }

    private static void assertOneErrorLine(Exit exit, String expected) {
        assertEquals(1, exit.code(), exit.stderr());
        assertEquals(List.of("ERROR: " + expected), exit.stderr().strip().lines().toList(), "one line: " + exit.stderr());
        assertFalse(exit.stderr().contains("\tat "), "no stack trace: " + exit.stderr());
        assertFalse(exit.stdout().contains("serving on"), "nothing served: " + exit.stdout());
    }

    @ParameterizedTest
    @ValueSource(strings = {"regionserver", "master"})
    void aGivenConfigurationDirectoryThatDoesNotExistStopsTheServer(String role, @TempDir Path home) throws Exception {
        Path missing = home.resolve("nonexistent");
        Exit exit = run(role.equals("master") ? Master.class : RegionServer.class, home, Map.of(),
            "-Dengine.home=" + home, "-Dengine.log.dir=" + home.resolve("logs"), "-Dengine.conf.dir=" + missing);

        assertOneErrorLine(exit, "the configuration directory " + missing + " does not exist (engine.conf.dir=" + missing + ")");
    }

    @ParameterizedTest
    @ValueSource(strings = {"regionserver", "master"})
    void aGivenDirectoryWithoutEngineSiteStopsTheServer(String role, @TempDir Path home) throws Exception {
        Path conf = Files.createDirectories(home.resolve("conf"));
        Files.writeString(conf.resolve("jvm.options"), "-Xmx64m\n"); // a conf directory, but not the engine's file
        Exit exit = run(role.equals("master") ? Master.class : RegionServer.class, home,
            Map.of("ENGINE_CONF_DIR", conf.toString()), "-Dengine.home=" + home, "-Dengine.log.dir=" + home.resolve("logs"));

        assertOneErrorLine(exit, "the configuration directory " + conf + " has no engine-site.xml (ENGINE_CONF_DIR=" + conf + ")");
    }

    /** The accident this guards against: a relative ENGINE_CONF_DIR resolved against another working directory. */
    @Test
    void aRelativeDirectoryResolvedElsewhereNamesBothAndStopsTheServer(@TempDir Path home) throws Exception {
        Path elsewhere = Files.createDirectories(home.resolve("elsewhere"));
        Exit exit = run(RegionServer.class, elsewhere, Map.of("ENGINE_CONF_DIR", "conf"),
            "-Dengine.home=" + home, "-Dengine.log.dir=" + home.resolve("logs"));

        assertOneErrorLine(exit, "the configuration directory " + elsewhere.resolve("conf") + " does not exist "
            + "(ENGINE_CONF_DIR=conf, relative to the working directory " + elsewhere + ")");
    }

    @Test
    void anUnknownKeyIsNamedInOneWarnLineAndTheServerServes(@TempDir Path home) throws Exception {
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/engine-site.xml"), "<configuration>\n"
            + "<property><name>hbase.rootdir</name><value>" + home.resolve("data") + "</value></property>\n"
            + "<property><name>hbase.regionserver.port</name><value>0</value></property>\n"
            + "<property><name>hbase.rpc.server.iml</name><value>SimpleRpcServer</value></property>\n"
            + "<property><name>heaplab.regionserver.write.pth</name><value>staged</value></property>\n"
            + "<property><name>hbase.ipc.server.reservoir.enabled</name><value>false</value></property>\n"
            + "</configuration>\n");
        ChildRegionServer server = new ChildRegionServer(home, "-Xmx128m", "-XX:+UseSerialGC");
        try {
            server.awaitServing("a typo'd key");
            List<String> warnings = server.output.stream().filter(l -> l.contains(" WARN ")).toList();
            assertEquals(1, warnings.size(), "one WARN line: " + server.output);
            assertTrue(warnings.get(0).endsWith(" WARN  [main] unknown configuration keys (not read by the engine): "
                + "hbase.rpc.server.iml, heaplab.regionserver.write.pth"), warnings.get(0));
            // the typo ran the defaults, and the start-up lines say so
            assertTrue(server.output.stream().anyMatch(l -> l.contains("INFO  [main] rpc server: NettyRpcServer")), server.output.toString());
            assertTrue(server.output.stream().anyMatch(l -> l.contains("INFO  [main] write path: legacy")), server.output.toString());
            assertTrue(server.output.stream().anyMatch(l -> l.contains("starting region server: conf "
                + home.resolve("conf/engine-site.xml") + " (engine.conf.dir=" + home.resolve("conf") + ")")), server.output.toString());
        } finally {
            server.process.destroy();
            server.process.waitFor(60, TimeUnit.SECONDS);
        }
    }
}
