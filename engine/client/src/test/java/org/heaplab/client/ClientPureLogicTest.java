package org.heaplab.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.protocol.RegionLocation;
import org.junit.jupiter.api.Test;

/** The client's pure logic: location lookups, per-server grouping, the backoff schedule, the keys. */
class ClientPureLogicTest {
    private static byte[] b(String s) {
        return s.getBytes();
    }

    private static RegionLocation region(String start, String end, String server) {
        return new RegionLocation("T", start + "-" + end, b(start), b(end), server, true);
    }

    private static final List<RegionLocation> REGIONS = List.of(region("", "d", "a:1"), region("d", "m", "b:1"),
        region("m", "", "a:1"));

    @Test
    void cacheFindsTheRegionHoldingARow() {
        LocationCache c = new LocationCache();
        assertNull(c.find("T", b("x")));
        c.put("T", REGIONS);
        assertEquals("b:1", c.find("T", b("d")).server(), "a start key belongs to its region");
        assertEquals("a:1", c.find("T", b("cz")).server());
        assertEquals("a:1", c.find("T", new byte[0]).server(), "the empty row is in the first region");
        assertEquals("a:1", c.find("T", b("zzz")).server());
        assertEquals("b:1", c.find("T", new byte[] {'l', (byte) 0xff}).server(), "unsigned byte order");
        c.put("G", List.of(region("", "d", "a:1"), region("m", "", "a:1")));
        assertNull(c.find("G", b("f")), "a gap is a miss: relocate");
    }

    @Test
    void invalidationDropsATableOrEveryTableOnAServer() {
        LocationCache c = new LocationCache();
        c.put("T", REGIONS);
        c.put("U", List.of(new RegionLocation("U", "u", b(""), b(""), "c:1", true)));
        c.invalidateServer("b:1");
        assertNull(c.find("T", b("a")), "T had a region on b:1");
        assertEquals("c:1", c.find("U", b("a")).server());
        c.invalidate("U");
        assertNull(c.regions("U"));
    }

    @Test
    void batchesGroupPerServerKeepingRequestOrder() throws Exception {
        LocationCache c = new LocationCache();
        c.put("T", REGIONS);
        byte[][] rows = {b("x"), b("e"), b("a"), b("f"), b("n")};
        List<ServerBatches.Group> groups = ServerBatches.group(new int[] {0, 1, 2, 3, 4}, rows, r -> c.find("T", r));
        assertEquals(2, groups.size());
        assertEquals("a:1", groups.get(0).server(), "groups in the order of their first item");
        assertArrayEquals(new int[] {0, 2, 4}, groups.get(0).items());
        assertArrayEquals(new int[] {1, 3}, groups.get(1).items());
        List<ServerBatches.Group> retry = ServerBatches.group(new int[] {3}, rows, r -> c.find("T", r));
        assertArrayEquals(new int[] {3}, retry.get(0).items(), "a retry groups only the failed items");
    }

    @Test
    void backoffFollowsHBasesSchedule() {
        long[] expected = {100, 200, 300, 500, 1000, 2000, 4000, 10000, 10000, 10000, 10000, 20000, 20000, 20000, 20000};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], RetryBackoff.pauseMs(100, i), "retry " + i);
        }
        for (int i = 0; i < 20; i++) {
            long p = RetryBackoff.pauseWithJitterMs(100, 4);
            assertTrue(p >= 1000 && p <= 1010, "1% jitter at most: " + p);
        }
    }

    @Test
    void keysHaveHBasesDefaultsAndOneLineErrors() {
        ClientSettings d = ClientSettings.fromConf(new Configuration());
        assertEquals(ClientSettings.DEFAULTS, d);
        assertEquals(16, d.maxAttempts(), "15 retries after the first attempt");
        ClientSettings s = ClientSettings.fromConf(new Configuration().set("hbase.client.pause", "50")
            .set("hbase.client.retries.number", "0"));
        assertEquals(50, s.busyPauseMs(), "the busy pause defaults to the pause");
        assertEquals(1, s.maxAttempts());
        assertEquals("hbase.client.retries.number must be 0 or more, got -1", assertThrows(ConfigurationException.class,
            () -> ClientSettings.fromConf(new Configuration().set("hbase.client.retries.number", "-1"))).getMessage());
        assertEquals("hbase.client.pause must be a positive number of milliseconds, got 0", assertThrows(
            ConfigurationException.class, () -> ClientSettings.fromConf(new Configuration().set("hbase.client.pause", "0")))
            .getMessage());
        assertEquals(List.of("m1:16000", "m2:16000"), Connection.parseMasters("m1:16000, m2:16000"));
        assertEquals("hbase.masters must be host:port[,host:port...], got 'm1'",
            assertThrows(ConfigurationException.class, () -> Connection.parseMasters("m1")).getMessage());
    }
}
