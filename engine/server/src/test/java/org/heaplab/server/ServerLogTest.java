package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ServerLogTest {
    @Test
    void oneLinePerEvent() {
        assertEquals("2026-01-02T03:04:05.006Z INFO  [main] a b",
            ServerLog.format(Instant.parse("2026-01-02T03:04:05.006789Z"), "INFO ", "main", "a\nb"));
    }
}
