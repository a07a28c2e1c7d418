package org.heaplab.server.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.server.ClusterKeys;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Start-up errors of the master and of a region server's cluster mode: one line naming the key or file. */
@Timeout(30)
class MasterStartupTest {
    @TempDir
    Path root;

    @Test
    void aTakenPortNamesTheKey() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            IOException e = assertThrows(RegionServer.PortInUseException.class,
                () -> Master.start(MiniCluster.masterConf(root, taken.getLocalPort(), 5000)));
            assertTrue(e.getMessage().contains(ClusterKeys.MASTER_PORT), e.getMessage());
        }
    }

    @Test
    void aTimeoutNotAboveTheHeartbeatIntervalIsRefused() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
            () -> Master.start(MiniCluster.masterConf(root, 0, MiniCluster.HEARTBEAT_MS)));
        assertTrue(e.getMessage().startsWith(ClusterKeys.REGIONSERVER_TIMEOUT), e.getMessage());
        ConfigurationException negative = assertThrows(ConfigurationException.class,
            () -> Master.start(MiniCluster.masterConf(root, 0, 5000).set(ClusterKeys.MSG_INTERVAL, "0")));
        assertTrue(negative.getMessage().startsWith(ClusterKeys.MSG_INTERVAL), negative.getMessage());
    }

    @Test
    void aDamagedStateFileNamesItself() throws IOException {
        Path tables = root.resolve("master/tables");
        Files.createDirectories(tables);
        Files.writeString(tables.resolve("T.table"), "format=1\nname=T\n");
        IOException e = assertThrows(IOException.class, () -> Master.start(MiniCluster.masterConf(root, 0, 5000)));
        assertTrue(e.getMessage().contains("T.table"), e.getMessage());
    }

    @Test
    void clusterModeNeedsTheMastersAddress() {
        ConfigurationException missing = assertThrows(ConfigurationException.class, () -> RegionServer.start(
            MiniCluster.serverConf(root.resolve("rs"), 0, "x:1").set(ClusterKeys.MASTERS, "")));
        assertTrue(missing.getMessage().startsWith(ClusterKeys.MASTERS), missing.getMessage());
        ConfigurationException bad = assertThrows(ConfigurationException.class, () -> RegionServer.start(
            MiniCluster.serverConf(root.resolve("rs"), 0, "no-port")));
        assertEquals(ClusterKeys.MASTERS + " must be host:port[,host:port], got 'no-port'", bad.getMessage());
    }
}
