package org.heaplab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DurabilityTest {
    @Test
    void parsesEveryNameCaseInsensitively() {
        for (Durability d : Durability.values()) {
            assertEquals(d, Durability.parse(d.name()));
            assertEquals(d, Durability.parse(" " + d.name().toLowerCase() + " "));
        }
    }

    @Test
    void useDefaultIsSyncWal() {
        assertEquals(Durability.SYNC_WAL, Durability.USE_DEFAULT.resolve());
        assertEquals(Durability.ASYNC_WAL, Durability.ASYNC_WAL.resolve());
    }

    @Test
    void badNameListsValidValues() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durability.parse("SYNC"));
        assertTrue(e.getMessage().contains("'SYNC'"), e.getMessage());
        for (Durability d : Durability.values()) {
            assertTrue(e.getMessage().contains(d.name()), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Durability.parse(null));
    }
}
