package org.heaplab.core.conf;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a process of the distribution finds its directories and configuration, as bin/engine sets
 * them: system properties engine.home / engine.conf.dir / engine.log.dir first, then the environment
 * variables ENGINE_HOME / ENGINE_CONF_DIR / ENGINE_LOG_DIR, then defaults (home = working directory,
 * conf = home/conf, logs = home/logs).
 *
 * <p>It lives in core, next to {@link Configuration}, because every process of the distribution reads it:
 * the servers (region server, master) and the client tools (pe, admin, ycsb). In the server module the
 * tools needed the whole server on their compile classpath for one small class.
 *
 * <p>Immutable, so thread safe.
 */
public record EngineEnv(Path home, Path confDir, Path logDir) {
    public static final String SITE_FILE = "engine-site.xml";
    public static final String ROOTDIR_KEY = StorageKeys.ROOT_DIR;
    /** The file of the region server's GC pause lines (the server's GcEventRecorder writes it). */
    public static final String GC_EVENTS_FILE_KEY = "heaplab.gc.events.file";

    public static EngineEnv fromSystem() {
        Path home = Path.of(lookup("engine.home", "ENGINE_HOME", ".")).toAbsolutePath().normalize();
        Path conf = Path.of(lookup("engine.conf.dir", "ENGINE_CONF_DIR", home.resolve("conf").toString()));
        Path logs = Path.of(lookup("engine.log.dir", "ENGINE_LOG_DIR", home.resolve("logs").toString()));
        return new EngineEnv(home, conf.toAbsolutePath(), logs.toAbsolutePath());
    }

    private static String lookup(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? fallback : v;
    }

    public Path siteFile() {
        return confDir.resolve(SITE_FILE);
    }

    /**
     * engine-site.xml (when present) with the defaults that depend on the directories filled in:
     * hbase.rootdir = home/data, heaplab.gc.events.file = logDir/gc-events.jsonl.
     *
     * @throws ConfigurationException when the file is unreadable or not XML
     */
    public Configuration loadConfiguration() {
        Configuration conf = new Configuration();
        if (Files.exists(siteFile())) {
            conf.addResource(siteFile());
        }
        if (conf.get(ROOTDIR_KEY) == null) {
            conf.set(ROOTDIR_KEY, home.resolve("data").toString());
        }
        if (conf.get(GC_EVENTS_FILE_KEY) == null) {
            conf.set(GC_EVENTS_FILE_KEY, logDir.resolve("gc-events.jsonl").toString());
        }
        return conf;
    }
}
