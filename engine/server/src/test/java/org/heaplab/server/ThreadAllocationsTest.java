package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import org.heaplab.server.ThreadAllocations.Group;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The per-thread-group allocation tally: groups by thread name, and a thread that ended keeps its bytes. */
@Timeout(60)
class ThreadAllocationsTest {
    private static volatile Object sink;

    @Test
    void threadNamesMapToGroups() {
        assertEquals(Group.HANDLER, ThreadAllocations.groupOf("RpcServer.handler=3,queue=0,all"));
        assertEquals(Group.HANDLER, ThreadAllocations.groupOf("WritePath.append-2"));
        assertEquals(Group.READER, ThreadAllocations.groupOf("RpcServer.reader=1,port=16020"));
        assertEquals(Group.READER, ThreadAllocations.groupOf("RpcServer.listener,port=16020"));
        assertEquals(Group.READER, ThreadAllocations.groupOf("RpcServer.responder,port=16020"));
        assertEquals(Group.READER, ThreadAllocations.groupOf("RpcServer.netty-2-1"));
        assertEquals(Group.WAL, ThreadAllocations.groupOf("wal-0000000001.log-consumer"));
        assertEquals(Group.WAL, ThreadAllocations.groupOf("wal-0000000001.log-syncer-4"));
        assertEquals(Group.FLUSH, ThreadAllocations.groupOf("MemStoreFlusher"));
        assertEquals(Group.OTHER, ThreadAllocations.groupOf("bucket-cache-writer-0"));
        assertEquals(Group.OTHER, ThreadAllocations.groupOf("main"));
    }

    /** Allocates about {@code bytes} on the heap in 64 KB arrays. */
    private static void allocate(long bytes) {
        for (long done = 0; done < bytes; done += 65536) {
            sink = new byte[65536];
        }
    }

    @Test
    void anEndedThreadKeepsItsBytesAndTotalsNeverFall() throws Exception {
        ThreadAllocations tracker = new ThreadAllocations(ManagementFactory.getThreadMXBean());
        if (!tracker.supported()) {
            assertEquals(0, tracker.snapshot().totalBytes()); // the JVM has no counters: zeros, never a failure
            return;
        }
        long before = tracker.snapshot().byGroup().get(Group.HANDLER);
        CountDownLatch allocated = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            allocate(16 << 20);
            allocated.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "RpcServer.handler=test");
        t.start();
        allocated.await();
        long alive = tracker.snapshot().byGroup().get(Group.HANDLER);
        assertTrue(alive - before >= 16 << 20, "the live thread's 16 MB: " + (alive - before));
        release.countDown();
        t.join();
        ThreadAllocations.Snapshot ended = tracker.snapshot();
        assertTrue(ended.byGroup().get(Group.HANDLER) >= alive, "still counted after the thread ended");
        assertTrue(ended.totalBytes() >= ended.byGroup().get(Group.HANDLER));
    }
}
