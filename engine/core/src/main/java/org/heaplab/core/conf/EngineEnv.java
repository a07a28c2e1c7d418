package org.heaplab.core.conf;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a process of the distribution finds its directories and configuration, as bin/engine sets
 * them: system properties engine.home / engine.conf.dir / engine.log.dir first, then the environment
 * variables ENGINE_HOME / ENGINE_CONF_DIR / ENGINE_LOG_DIR, then defaults (home = working directory,
 * conf = home/conf, logs = home/logs).
 *
 * <p>A configuration directory that was given (engine.conf.dir or ENGINE_CONF_DIR, recorded in
 * {@code confGiven}) must exist and hold engine-site.xml: a mistyped or relative directory resolved
 * against another working directory would otherwise run the defaults and look right. Only the implicit
 * default, home/conf, may be absent; then every key has its default.
 *
 * <p>It lives in core, next to {@link Configuration}, because every process of the distribution reads it:
 * the servers (region server, master) and the client tools (pe, admin, ycsb). In the server module the
 * tools needed the whole server on their compile classpath for one small class.
 *
 * <p>Immutable, so thread safe.
 *
 * @param confGiven how the configuration directory was given, e.g. {@code ENGINE_CONF_DIR=conf}, or null
 *                  for the implicit default home/conf
 */
public record EngineEnv(Path home, Path confDir, Path logDir, String confGiven) {
    public static final String SITE_FILE = "engine-site.xml";
    public static final String ROOTDIR_KEY = StorageKeys.ROOT_DIR;
    /** The file of the region server's GC pause lines (the server's GcEventRecorder writes it). */
    public static final String GC_EVENTS_FILE_KEY = "heaplab.gc.events.file";
    static final String CONF_DIR_PROPERTY = "engine.conf.dir";
    static final String CONF_DIR_ENV = "ENGINE_CONF_DIR";

    /** Directories with the implicit default configuration directory (nothing was given). */
    public EngineEnv(Path home, Path confDir, Path logDir) {
        this(home, confDir, logDir, null);
    }

    public static EngineEnv fromSystem() {
        Path home = Path.of(lookup("engine.home", "ENGINE_HOME", ".")).toAbsolutePath().normalize();
        String given = given(CONF_DIR_PROPERTY, CONF_DIR_ENV);
        Path conf = given == null ? home.resolve("conf") : Path.of(valueOf(given));
        Path logs = Path.of(lookup("engine.log.dir", "ENGINE_LOG_DIR", home.resolve("logs").toString()));
        return new EngineEnv(home, conf.toAbsolutePath(), logs.toAbsolutePath(), given);
    }

    private static String lookup(String property, String env, String fallback) {
        String given = given(property, env);
        return given == null ? fallback : valueOf(given);
    }

    /** "property=value" or "ENV=value" for the first of the two that is set and not blank, else null. */
    private static String given(String property, String env) {
        String v = System.getProperty(property);
        if (v != null && !v.isBlank()) {
            return property + "=" + v;
        }
        v = System.getenv(env);
        return v == null || v.isBlank() ? null : env + "=" + v;
    }

    /** The value of a "name=value" from {@link #given}. */
    private static String valueOf(String given) {
        return given.substring(given.indexOf('=') + 1);
    }

    public Path siteFile() {
        return confDir.resolve(SITE_FILE);
    }

    /** The site file for the start-up line: its path, and where its directory came from. */
    public String describeSite() {
        if (confGiven != null) {
            return siteFile() + " (" + confGiven + ")";
        }
        return siteFile() + (Files.exists(siteFile()) ? " (the default <home>/conf)" : " (absent: every key at its default)");
    }

    /**
     * engine-site.xml (when present) with the defaults that depend on the directories filled in:
     * hbase.rootdir = home/data, heaplab.gc.events.file = logDir/gc-events.jsonl.
     *
     * @throws ConfigurationException when a given configuration directory is missing or has no
     *                                engine-site.xml, or when the file is unreadable or not XML
     */
    public Configuration loadConfiguration() {
        Configuration conf = new Configuration();
        if (confGiven != null) {
            checkGivenConfDir();
        }
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

    private void checkGivenConfDir() {
        String given = Path.of(valueOf(confGiven)).isAbsolute() ? confGiven
            : confGiven + ", relative to the working directory " + Path.of("").toAbsolutePath();
        if (!Files.isDirectory(confDir)) {
            String problem = Files.exists(confDir) ? "is not a directory" : "does not exist";
            throw new ConfigurationException("the configuration directory " + confDir + " " + problem + " (" + given + ")");
        }
        if (!Files.isRegularFile(siteFile())) {
            throw new ConfigurationException("the configuration directory " + confDir + " has no " + SITE_FILE + " (" + given + ")");
        }
    }
}
