package org.heaplab.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.RegionLocation;
import org.heaplab.rpc.protocol.RegionLocationCodec;
import org.heaplab.rpc.server.RpcServer;
import org.heaplab.rpc.server.RpcServers;
import org.heaplab.rpc.server.RpcService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ConnectionTest {
    private static final byte[] F = "info0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] Q = "0".getBytes(StandardCharsets.US_ASCII);
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    /** PUT batches the fake server received (cell counts), and GET answers with one fixed cell. */
    private final List<Integer> putBatches = new CopyOnWriteArrayList<>();
    private RpcServer server;

    @BeforeEach
    void start() throws IOException {
        RpcService fake = request -> switch (request.method()) {
            case PUT -> {
                putBatches.add(request.cells().size());
                yield RpcService.Reply.EMPTY;
            }
            case GET -> {
                request.paramReader().readString();
                byte[] row = request.paramReader().readBytes();
                yield new RpcService.Reply(new byte[0], List.of(KeyValue.create("row".getBytes(StandardCharsets.US_ASCII), F, Q, 1L,
                    KeyValue.Type.PUT, "v".getBytes(StandardCharsets.US_ASCII))));
            }
            case TABLE_EXISTS -> RpcService.Reply.of(new ParamWriter().writeBoolean(
                request.paramReader().readString().equals("yes")));
            case LIST_TABLES -> RpcService.Reply.of(new ParamWriter().writeInt(2).writeString("a").writeString("b"));
            case LOCATE -> { // standalone: one region, this server
                ParamWriter w = new ParamWriter();
                RegionLocationCodec.write(w, List.of(new RegionLocation(request.paramReader().readString(), "r0", new byte[0],
                    new byte[0], HOST + ":" + server.port(), true)));
                yield RpcService.Reply.of(w);
            }
            default -> RpcService.Reply.EMPTY;
        };
        server = RpcServers.fromConf(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), fake,
            new Configuration().set("hbase.regionserver.handler.count", "4"), line -> { });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void refusedConnectionSaysHowToStartAServer() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        NoRegionServerException e = assertThrows(NoRegionServerException.class, () -> Connection.open(HOST, port));
        assertEquals("no region server at " + HOST + ":" + port
            + " (connection refused); start one with bin/engine-daemon start regionserver", e.getMessage());
    }

    @Test
    void openReadsHostAndPortFromConfiguration() throws IOException {
        Configuration conf = new Configuration().set(Connection.HOSTNAME_KEY, HOST)
            .set(Connection.PORT_KEY, Integer.toString(server.port()));
        try (Connection c = Connection.open(conf)) {
            assertEquals(List.of("a", "b"), c.getAdmin().tables());
            assertTrue(c.getAdmin().tableExists("yes"));
            assertFalse(c.getAdmin().tableExists("no"));
        }
    }

    @Test
    void putSingleAndBatchAndGet() throws IOException {
        try (Connection c = Connection.open(HOST, server.port())) {
            Table t = c.getTable("T");
            t.put(new Put("r1".getBytes(StandardCharsets.US_ASCII)).addColumn(F, Q, new byte[10]));
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                batch.add(new Put(("r" + i).getBytes(StandardCharsets.US_ASCII)).addColumn(F, Q, new byte[10]));
            }
            t.put(batch);
            assertEquals(List.of(1, 5), putBatches);
            Result r = t.get("row".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals("v".getBytes(StandardCharsets.US_ASCII), r.getValue(F, Q));
            assertNull(r.getValue(F, "other".getBytes(StandardCharsets.US_ASCII)));
        }
    }

    @Test
    void bufferedMutatorSendsWhenTheBufferFills() throws IOException {
        try (Connection c = Connection.open(HOST, server.port())) {
            BufferedMutator m = c.getTable("T").bufferedMutator(10_000);
            int sent = 0;
            for (int i = 0; i < 95; i++) {
                if (m.mutate(new Put(("r" + i).getBytes(StandardCharsets.US_ASCII)).addColumn(F, Q, new byte[1000]))) {
                    sent++;
                }
            }
            m.close();
            int cells = putBatches.stream().mapToInt(Integer::intValue).sum();
            assertEquals(95, cells, "every buffered put is sent by close()");
            assertEquals(sent + 1, putBatches.size(), "full buffers plus the final flush");
            assertTrue(putBatches.get(0) < 11 && putBatches.get(0) > 5, "batches of about 10 KB: " + putBatches);
        }
    }

    @Test
    void closedConnectionFailsCallsWithAClearMessage() throws IOException {
        Connection c = Connection.open(HOST, server.port());
        c.close();
        IOException e = assertThrows(IOException.class, () -> c.getAdmin().tables());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
