package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.Cell;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test sink: a real {@link ChannelWalSink} that counts calls, can hold the first flush on a gate
 * (so appends pile up behind it) and can fail flushes on demand.
 */
final class CountingSink implements WalSink {
    final ChannelWalSink file;
    final AtomicInteger appends = new AtomicInteger();
    final AtomicInteger flushes = new AtomicInteger();
    final AtomicInteger forces = new AtomicInteger();
    /** Counted down when the first flush has started (and is held on {@link #gate}). */
    final CountDownLatch firstFlushStarted = new CountDownLatch(1);
    volatile CountDownLatch gate;
    volatile CountDownLatch appendsSeen = new CountDownLatch(0);
    volatile boolean failFlush;
    /** When set, the first append (on the consumer thread) is held until it opens. */
    volatile CountDownLatch appendGate;
    final CountDownLatch firstAppendStarted = new CountDownLatch(1);

    CountingSink(Path path) throws IOException {
        this.file = ChannelWalSink.create(path);
    }

    @Override
    public void append(long seqId, String table, String region, List<? extends Cell> cells) throws IOException {
        CountDownLatch g = appendGate;
        if (g != null && firstAppendStarted.getCount() > 0) {
            firstAppendStarted.countDown();
            await(g);
        }
        file.append(seqId, table, region, cells);
        appends.incrementAndGet();
        appendsSeen.countDown();
    }

    @Override
    public void flush() throws IOException {
        if (flushes.incrementAndGet() == 1) {
            firstFlushStarted.countDown();
            CountDownLatch g = gate;
            if (g != null) {
                await(g);
            }
        }
        if (failFlush) {
            throw new IOException("injected flush failure");
        }
        file.flush();
    }

    @Override
    public void force() throws IOException {
        forces.incrementAndGet();
        file.force();
    }

    @Override
    public void close() throws IOException {
        file.close();
    }

    private static void await(CountDownLatch g) throws IOException {
        try {
            if (!g.await(20, TimeUnit.SECONDS)) {
                throw new IOException("test gate never opened");
            }
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
    }

    static List<WalRecord> replay(Path path) throws IOException {
        List<WalRecord> out = new ArrayList<>();
        try (WalReader r = WalReader.open(path, true)) {
            WalRecord rec;
            while ((rec = r.next()) != null) {
                out.add(rec);
            }
        }
        return out;
    }
}
