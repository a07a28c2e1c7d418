package org.heaplab.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.EngineEnv;

/**
 * What `bin/engine regionserver` and `bin/engine master` share around their own start-up: loading the
 * configuration, recording GC pauses, starting or failing with one line, and the shutdown hook that stops
 * the server on SIGTERM. Called from the main thread only.
 */
public final class ServerMain {
    /** The start of the WARN line {@link #warnUnknownKeys} writes (heaplab reads it: docs/contracts.md). */
    public static final String UNKNOWN_KEYS = "unknown configuration keys (not read by the engine): ";

    private ServerMain() {
    }

    /** The configuration of this process's engine-site.xml; a bad file exits with one line. */
    public static Configuration loadConfigurationOrExit(EngineEnv env) {
        try {
            return env.loadConfiguration();
        } catch (ConfigurationException e) {
            exit(e.getMessage());
            return null; // not reached
        }
    }

    /**
     * One WARN line naming the hbase.* and heaplab.* keys of {@code conf} the engine does not know
     * ({@link KnownKeys}), comma separated and sorted; nothing when there are none. The server still starts:
     * a key HBase has and the engine does not is no error, but a typo'd switch key would run the default.
     */
    public static void warnUnknownKeys(Configuration conf) {
        List<String> unknown = KnownKeys.unknown(conf);
        if (!unknown.isEmpty()) {
            ServerLog.warn(UNKNOWN_KEYS + String.join(", ", unknown));
        }
    }

    /** Starts recording GC pauses into {@code file}; on failure warns and returns null (the server still runs). */
    public static GcEventRecorder recordGc(Path file) {
        try {
            return GcEventRecorder.start(file);
        } catch (IOException e) {
            ServerLog.warn("GC events will not be recorded: " + e.getMessage());
            return null;
        }
    }

    /**
     * Starts the server of {@code main}. A taken port or a bad value exits with its own one line; any other
     * failure is logged and exits with "cannot start the {@code what}: ...". Errors (out of memory) pass.
     */
    public static <S> S startOrExit(String what, Starter<S> starter) {
        try {
            return starter.start();
        } catch (RegionServer.PortInUseException | InfoServer.PortInUseException | ConfigurationException e) {
            exit(e.getMessage());
        } catch (IOException | RuntimeException e) {
            ServerLog.error("cannot start the " + what + ": " + e);
            exit("cannot start the " + what + ": " + e.getMessage());
        }
        return null; // not reached: exit does not return
    }

    /** Prints "ERROR: message" and exits with status 1. */
    public static void exit(String message) {
        System.err.println("ERROR: " + message);
        System.exit(1);
    }

    /** On SIGTERM: logs {@code stopping}, runs {@code stop}, closes the GC recorder, logs "stopped". */
    public static void stopOnShutdown(String stopping, Runnable stop, GcEventRecorder gc) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ServerLog.info(stopping);
            stop.run();
            if (gc != null) {
                try {
                    gc.close();
                } catch (IOException ignored) {
                    // best effort at exit
                }
            }
            ServerLog.info("stopped");
        }, "shutdown"));
    }

    /**
     * Ends a process whose server aborted (its line saying why is logged) with status 1. Halts rather than
     * exits: the shutdown hook would log a clean stop ("flushing memstores") that an abort is not.
     */
    public static void exitAborted(GcEventRecorder gc) {
        if (gc != null) {
            try {
                gc.close();
            } catch (IOException ignored) {
                // best effort at exit
            }
        }
        Runtime.getRuntime().halt(1);
    }

    /** Blocks the main thread until the server has stopped. */
    public static void await(StopWaiter waiter) {
        try {
            waiter.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A server's start. */
    @FunctionalInterface
    public interface Starter<S> {
        S start() throws IOException;
    }

    /** A server's awaitStop. */
    @FunctionalInterface
    public interface StopWaiter {
        void awaitStop() throws InterruptedException;
    }
}
