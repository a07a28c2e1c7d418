package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.rpc.protocol.RegionLocationCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A standalone region server answers LOCATE and CLUSTER_STATUS for itself and refuses the master's methods. */
@Timeout(60)
class StandaloneLocateTest {
    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void locatesEveryRegionOnItself(@TempDir Path root) throws Exception {
        StorageAssumption.assumeStorage();
        RegionServer server = RegionServer.start(RegionServerTest.conf(root, 0));
        String self = RegionServerTest.conf(root, 0).get(RegionServer.HOSTNAME_KEY) + ":" + server.port();
        try (RpcConnection c = RpcConnection.open("127.0.0.1", server.port(), 5000, 30_000)) {
            TableSpec spec = new TableSpec(new TableDescriptor("T", b("f"), Compression.NONE), new byte[][] {b("m"), b("t")});
            c.call(Method.CREATE_TABLE, spec.write(new ParamWriter()).toByteArray(), List.of());

            List<RegionLocation> locations = RegionLocationCodec.read(
                c.call(Method.LOCATE, new ParamWriter().writeString("T").toByteArray(), List.of()).paramReader());
            assertEquals(3, locations.size());
            assertArrayEquals(new byte[0], locations.get(0).startKey());
            assertArrayEquals(b("m"), locations.get(0).endKey());
            assertArrayEquals(b("t"), locations.get(2).startKey());
            for (RegionLocation l : locations) {
                assertEquals(self, l.server());
                assertTrue(l.serverOnline());
                assertEquals("T", l.table());
            }
            RemoteException missing = assertThrows(RemoteException.class,
                () -> c.call(Method.LOCATE, new ParamWriter().writeString("nope").toByteArray(), List.of()));
            assertEquals(ErrorCode.TABLE_NOT_FOUND, missing.code());

            String json = c.call(Method.CLUSTER_STATUS, new byte[0], List.of()).paramReader().readString();
            assertTrue(json.startsWith("{\"master\": null, \"servers\": [{\"server\": \"" + self + "\", \"online\": true"),
                json);
            assertTrue(json.endsWith("\"tables\": 1, \"regions\": 3}"), json);

            RemoteException open = assertThrows(RemoteException.class, () -> c.call(Method.OPEN_REGIONS,
                spec.write(new ParamWriter()).writeLong(1).writeInt(1).writeInt(0).toByteArray(), List.of()));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, open.code());
            RemoteException register = assertThrows(RemoteException.class, () -> c.call(Method.REGISTER,
                new ParamWriter().writeString("x:1").writeLong(1).writeString("").toByteArray(), List.of()));
            assertEquals(ErrorCode.ILLEGAL_ARGUMENT, register.code());
        } finally {
            server.stop();
        }
    }
}
