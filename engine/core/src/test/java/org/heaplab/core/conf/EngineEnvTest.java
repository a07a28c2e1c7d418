package org.heaplab.core.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The defaults every process of the distribution starts from: the servers and the tools read the same. */
class EngineEnvTest {
    @TempDir
    Path home;

    @Test
    void withoutASiteFileTheDirectoriesGiveTheDefaults() {
        EngineEnv env = new EngineEnv(home, home.resolve("conf"), home.resolve("logs"));

        Configuration conf = env.loadConfiguration();

        assertEquals(home.resolve("conf").resolve("engine-site.xml"), env.siteFile());
        assertEquals(home.resolve("data").toString(), conf.get(StorageKeys.ROOT_DIR));
        assertEquals(home.resolve("logs").resolve("gc-events.jsonl").toString(), conf.get(EngineEnv.GC_EVENTS_FILE_KEY));
    }

    @Test
    void theSiteFileWinsOverTheDefaults() throws IOException {
        Path confDir = Files.createDirectories(home.resolve("conf"));
        Files.writeString(confDir.resolve(EngineEnv.SITE_FILE), "<configuration>"
            + "<property><name>hbase.rootdir</name><value>/srv/engine</value></property>"
            + "<property><name>heaplab.gc.events.file</name><value>/tmp/gc.jsonl</value></property>"
            + "<property><name>hbase.regionserver.port</name><value>16021</value></property>"
            + "</configuration>");

        Configuration conf = new EngineEnv(home, confDir, home.resolve("logs")).loadConfiguration();

        assertEquals("/srv/engine", conf.get(EngineEnv.ROOTDIR_KEY));
        assertEquals("/tmp/gc.jsonl", conf.get(EngineEnv.GC_EVENTS_FILE_KEY));
        assertEquals(16021, conf.getInt("hbase.regionserver.port", 0));
    }

    @Test
    void aSiteFileThatIsNotXmlIsAConfigurationError() throws IOException {
        Path confDir = Files.createDirectories(home.resolve("conf"));
        Files.writeString(confDir.resolve(EngineEnv.SITE_FILE), "hbase.rootdir=/srv/engine");

        EngineEnv env = new EngineEnv(home, confDir, home.resolve("logs"));

        assertThrows(ConfigurationException.class, env::loadConfiguration);
    }

    @Test
    void aGivenConfigurationDirectoryThatDoesNotExistIsAnErrorNamingIt() {
        Path missing = home.resolve("nonexistent");
        EngineEnv env = new EngineEnv(home, missing, home.resolve("logs"), "ENGINE_CONF_DIR=" + missing);

        ConfigurationException e = assertThrows(ConfigurationException.class, env::loadConfiguration);

        assertEquals("the configuration directory " + missing + " does not exist (ENGINE_CONF_DIR=" + missing + ")",
            e.getMessage());
    }

    @Test
    void aGivenConfigurationDirectoryWithoutTheSiteFileIsAnError() throws IOException {
        Path confDir = Files.createDirectories(home.resolve("conf"));
        EngineEnv env = new EngineEnv(home, confDir, home.resolve("logs"), "engine.conf.dir=" + confDir);

        ConfigurationException e = assertThrows(ConfigurationException.class, env::loadConfiguration);

        assertEquals("the configuration directory " + confDir + " has no engine-site.xml (engine.conf.dir=" + confDir + ")",
            e.getMessage());
    }

    @Test
    void aRelativeGivenDirectoryIsNamedWithTheWorkingDirectoryItWasResolvedAgainst() {
        Path resolved = Path.of("no-such-conf").toAbsolutePath();
        EngineEnv env = new EngineEnv(home, resolved, home.resolve("logs"), "ENGINE_CONF_DIR=no-such-conf");

        ConfigurationException e = assertThrows(ConfigurationException.class, env::loadConfiguration);

        assertTrue(e.getMessage().startsWith("the configuration directory " + resolved + " does not exist "
            + "(ENGINE_CONF_DIR=no-such-conf, relative to the working directory " + Path.of("").toAbsolutePath() + ")"),
            e.getMessage());
    }

    @Test
    void aGivenDirectoryWithTheSiteFileIsRead() throws IOException {
        Path confDir = Files.createDirectories(home.resolve("elsewhere"));
        Files.writeString(confDir.resolve(EngineEnv.SITE_FILE),
            "<configuration><property><name>hbase.regionserver.port</name><value>16021</value></property></configuration>");

        EngineEnv env = new EngineEnv(home, confDir, home.resolve("logs"), "ENGINE_CONF_DIR=" + confDir);

        assertEquals(16021, env.loadConfiguration().getInt("hbase.regionserver.port", 0));
        assertEquals(confDir.resolve("engine-site.xml") + " (ENGINE_CONF_DIR=" + confDir + ")", env.describeSite());
    }

    @Test
    void theImplicitDefaultMayBeAbsentAndTheStartUpLineSaysSo() {
        EngineEnv env = new EngineEnv(home, home.resolve("conf"), home.resolve("logs"));

        assertEquals(home.resolve("conf/engine-site.xml") + " (absent: every key at its default)", env.describeSite());
    }
}
