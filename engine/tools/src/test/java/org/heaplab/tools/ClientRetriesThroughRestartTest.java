package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.heaplab.client.BufferedMutator;
import org.heaplab.client.ClientSettings;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.client.Result;
import org.heaplab.client.Table;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.Compression;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real standalone region server stopped and started again on the same port while batch writers keep
 * writing: the client's retries (connection refused, then the server replaying its WAL) carry every
 * writer through without an error, and every row a writer saw acknowledged reads back afterwards.
 */
@Timeout(60)
class ClientRetriesThroughRestartTest {
    private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();

    @Test
    void batchWritersRideThroughARestart(@TempDir Path dir) throws Exception {
        PerformanceEvaluationTest.assumeStorage(dir);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Configuration serverConf = PerformanceEvaluationTest.conf(dir.resolve("data"), port);
        RegionServer server = RegionServer.start(serverConf);
        Configuration clientConf = new Configuration().set(Connection.HOSTNAME_KEY, HOST)
            .set(Connection.PORT_KEY, Integer.toString(port)).set(ClientSettings.PAUSE_KEY, "20");
        Set<String> acked = ConcurrentHashMap.newKeySet();
        List<Throwable> problems = new CopyOnWriteArrayList<>();
        AtomicInteger ackedBeforeStop = new AtomicInteger();
        CountDownLatch someWritten = new CountDownLatch(1);
        CountDownLatch restarted = new CountDownLatch(1);
        try (Connection shared = Connection.open(clientConf)) {
            shared.getAdmin().createTable(new TableDescriptor("R", PeData.FAMILY, Compression.NONE),
                new byte[][] {PeData.rowKey(2_000), PeData.rowKey(4_000), PeData.rowKey(6_000)});
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int id = w;
                Thread t = new Thread(() -> {
                    try {
                        write(shared.getTable("R"), id, acked, someWritten, restarted);
                    } catch (Throwable e) {
                        problems.add(e);
                    }
                }, "writer-" + w);
                writers.add(t);
                t.start();
            }
            assertTrue(someWritten.await(20, TimeUnit.SECONDS), "writers acknowledged nothing");
            server.stop();
            ackedBeforeStop.set(acked.size());
            assertTrue(writers.stream().allMatch(Thread::isAlive), "the stop landed mid-run");
            Thread.sleep(300); // writers meet a refused connection and back off
            server = RegionServer.start(serverConf);
            restarted.countDown();
            for (Thread t : writers) {
                t.join(40_000);
            }
            assertEquals(List.of(), problems, "the retries carried every writer through the restart");
            assertTrue(acked.size() > ackedBeforeStop.get(), "writers went on after the restart");
            Table t = shared.getTable("R");
            int missing = 0;
            for (String row : acked) {
                Result r = t.get(row.getBytes(StandardCharsets.US_ASCII));
                if (r.isEmpty()) {
                    missing++;
                }
            }
            assertEquals(0, missing, "acknowledged rows lost, of " + acked.size());
            assertEquals(acked.size(), AdminCli.countRows(t), "admin count sees exactly the acknowledged rows");
        } finally {
            server.stop();
        }
    }

    /** Writer {@code id}: rows id*2000.. through a small buffered mutator, until some time after the restart. */
    private static void write(Table t, int id, Set<String> acked, CountDownLatch someWritten, CountDownLatch restarted)
        throws IOException, InterruptedException {
        BufferedMutator m = t.bufferedMutator(4 * 1024);
        List<String> buffered = new ArrayList<>();
        int afterRestart = 0;
        for (int i = 0; i < 2_000 && afterRestart < 300; i++) {
            byte[] row = PeData.rowKey(id * 2_000 + i);
            buffered.add(new String(row, StandardCharsets.US_ASCII));
            if (m.mutate(new Put(row).addColumn(PeData.FAMILY, PeData.QUALIFIER, new byte[100]))) {
                acked.addAll(buffered); // the batch was sent and acknowledged
                buffered.clear();
                someWritten.countDown();
            }
            if (restarted.getCount() == 0) {
                afterRestart++;
            } else if (i % 20 == 0) {
                Thread.sleep(5); // spread the writes so the stop lands mid-run
            }
        }
        m.close();
        acked.addAll(buffered);
    }
}
