package org.heaplab.server;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The region server's log: one line per event, {@code <UTC ISO-8601 ms> <LEVEL> [<thread>] <message>},
 * INFO to stdout, WARN and ERROR to stderr (bin/engine-daemon sends both to $ENGINE_LOG_DIR/server.log).
 * Thread safe: each line is one println.
 */
public final class ServerLog {
    private static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private ServerLog() {
    }

    public static void info(String message) {
        line(System.out, "INFO ", message);
    }

    public static void warn(String message) {
        line(System.err, "WARN ", message);
    }

    public static void error(String message) {
        line(System.err, "ERROR", message);
    }

    static String format(Instant time, String level, String thread, String message) {
        return TIME.format(time) + " " + level + " [" + thread + "] " + message.replace('\n', ' ');
    }

    private static void line(PrintStream out, String level, String message) {
        out.println(format(Instant.now(), level, Thread.currentThread().getName(), message));
    }
}
