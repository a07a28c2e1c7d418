package org.heaplab.rpc.buffers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class DirectBufferPoolTest {
    private static final int SIZE = 66560;
    private static final int MIN = SIZE / 6; // 11093
    private final List<String> log = new CopyOnWriteArrayList<>();

    private DirectBufferPool pool(int maxCount) {
        return new DirectBufferPool(SIZE, maxCount, MIN, false, true, log::add);
    }

    private static List<String> shape(RequestBuffer b) {
        List<String> l = new ArrayList<>();
        for (ByteBuffer s : b.segments()) {
            l.add((s.isDirect() ? "pool " : "heap ") + s.limit());
        }
        return l;
    }

    @Test
    void smallRequestsComeFromTheHeapAndAreCounted() {
        DirectBufferPool p = pool(10);
        RequestBuffer b = p.allocate(300);
        assertEquals(List.of("heap 300"), shape(b));
        assertEquals(300, p.heapAllocationBytes());
        assertEquals(0, p.poolAllocationBytes());
        assertEquals(0, p.createdBuffers(), "nothing created before a request needs it");
        b.release();
        p.checkNoLeaks();
    }

    /** hbase.server.allocator.minimal.allocate.size 0, as HBase's ByteBuffAllocator: every request from the pool. */
    @Test
    void minimumZeroPoolsEvenTheSmallestRequest() {
        DirectBufferPool p = new DirectBufferPool(SIZE, 10, 0, false, true, log::add);
        RequestBuffer b = p.allocate(13);
        assertEquals(List.of("pool 13"), shape(b));
        assertEquals(List.of("pool 66560", "pool 1"), shape(p.allocate(SIZE + 1)), "no heap tail either");
        assertEquals(0, p.heapAllocationBytes());
        assertEquals(0, p.heapFallbacks());
        b.release();
    }

    @Test
    void wholeBuffersWhileTheRemainderIsAtLeastTheMinimumThenAHeapTail() {
        DirectBufferPool p = pool(10);
        assertEquals(List.of("pool 30000"), shape(p.allocate(30000)));
        assertEquals(List.of("pool " + MIN), shape(p.allocate(MIN)));
        assertEquals(List.of("pool 66560", "pool 66560", "heap 6880"), shape(p.allocate(140000)));
        assertEquals(List.of("pool 66560", "pool 20000"), shape(p.allocate(SIZE + 20000)));
        assertEquals(6880, p.heapAllocationBytes());
        assertEquals(30000 + MIN + 2 * 66560 + 66560 + 20000, p.poolAllocationBytes());
        assertEquals(6, p.createdBuffers());
        assertEquals(4, p.outstanding());
    }

    @Test
    void anExhaustedPoolFallsBackToTheHeapAndCountsIt() {
        DirectBufferPool p = pool(2);
        RequestBuffer a = p.allocate(40000);
        RequestBuffer b = p.allocate(40000);
        RequestBuffer c = p.allocate(40000);
        assertEquals(List.of("heap 40000"), shape(c));
        assertEquals(40000, p.heapAllocationBytes());
        assertEquals(80000, p.poolAllocationBytes());
        assertEquals(1.0 / 3, p.heapAllocationRatio(), 1e-9);
        a.release();
        RequestBuffer d = p.allocate(40000);
        assertEquals(List.of("pool 40000"), shape(d), "a returned buffer is reused");
        assertEquals(2, p.createdBuffers());
        b.release();
        c.release();
        d.release();
        assertEquals(2, p.freeBuffers(), "every pooled buffer is back");
        p.checkNoLeaks();
    }

    /**
     * Responses take whole pooled buffers whatever their size (no minimum), from the same pool and through
     * the same loop as requests; they count apart from requests, but outstanding with them.
     */
    @Test
    void responsesTakeWholeBuffersOfTheSamePoolAndCountApart() {
        DirectBufferPool p = pool(3);
        RequestBuffer small = p.allocateResponse(300);
        assertEquals(List.of("pool 300"), shape(small), "below the minimum, yet pooled: a response has none");
        RequestBuffer request = p.allocate(40000);
        RequestBuffer big = p.allocateResponse(SIZE + 5000); // one pooled buffer left, then the heap
        assertEquals(List.of("pool 66560", "heap 5000"), shape(big));
        assertEquals(3, p.createdBuffers(), "requests and responses share the pool's buffers");
        assertEquals(2, p.responseAllocations());
        assertEquals(300 + SIZE, p.responsePoolBytes());
        assertEquals(5000, p.responseHeapBytes());
        assertEquals(1, p.allocations(), "request counters see only the request");
        assertEquals(40000, p.poolAllocationBytes());
        assertEquals(0, p.heapAllocationBytes());
        assertEquals(0, p.heapFallbacks());
        assertEquals(3, p.outstanding(), "outstanding counts both");
        small.release();
        request.release();
        big.release();
        assertEquals(3, p.freeBuffers());
        p.checkNoLeaks();
    }

    @Test
    void theLeakDetectorNamesABufferThatWasNeverReleased() {
        DirectBufferPool p = pool(4);
        p.allocate(20000).release();
        RequestBuffer leaked = p.allocate(20000);
        IllegalStateException e = assertThrows(IllegalStateException.class, p::checkNoLeaks);
        assertTrue(e.getMessage().contains("1 request buffer"), e.getMessage());
        assertEquals(1, e.getSuppressed().length, "the allocation site is attached");
        assertTrue(e.getSuppressed()[0].getMessage().contains("20000 bytes"));
        leaked.release();
        p.checkNoLeaks();
        assertThrows(IllegalStateException.class, leaked::release, "a double release is a bug too");
    }

    @Test
    void aPoolThatDoesNotFitInDirectMemoryFailsStartUpNamingTheKey() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx64m", "-XX:MaxDirectMemorySize=4m", "-cp", System.getProperty("java.class.path"), PresizeChild.class.getName());
        pb.redirectErrorStream(true);
        Process proc = pb.start();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                out.add(line);
            }
        }
        assertTrue(proc.waitFor(30, TimeUnit.SECONDS));
        assertEquals(3, proc.exitValue(), () -> String.join("\n", out));
        String all = String.join("\n", out);
        assertTrue(all.contains(RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY) && all.contains("MaxDirectMemorySize"), all);
    }

    /** Child JVM: presizes 100 x 65 KB (6.5 MB) under a 4 MB direct-memory limit. */
    public static final class PresizeChild {
        public static void main(String[] args) {
            try {
                new DirectBufferPool(SIZE, 100, MIN, true, false, System.out::println);
                System.out.println("allocated");
                System.exit(0);
            } catch (ConfigurationException e) {
                System.out.println(e.getMessage());
                System.exit(3);
            }
        }
    }

    @Test
    void aDirectRequestBufferIsFilledFromTheStreamThroughTheScratchArray() throws Exception {
        DirectBufferPool p = pool(4);
        byte[] data = new byte[140000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        RequestBuffer b = p.allocate(data.length);
        b.readFully(new java.io.DataInputStream(new java.io.ByteArrayInputStream(data)), new byte[1000]);
        ByteBuffer all = b.contiguous();
        byte[] back = new byte[data.length];
        all.get(0, back);
        assertTrue(java.util.Arrays.equals(data, back));
        assertFalse(b.isReleased());
        b.release();
        p.checkNoLeaks();
    }

    @Test
    void concurrentAllocateAndReleaseLoseNoBuffer() throws Exception {
        DirectBufferPool p = pool(8);
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int k = 0; k < 2000; k++) {
                    p.allocate(20000 + k % 50000).release();
                }
            });
            ts.add(t);
            t.start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
        p.checkNoLeaks();
        assertEquals(p.createdBuffers(), p.freeBuffers());
        assertTrue(p.createdBuffers() <= 8);
    }
}
