package org.heaplab.core.cache.bucket;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

/**
 * One writer thread of a BucketCache with its bounded queue (HBase's WriterThread). cacheBlock only
 * offers a block to a queue, so the reading handler never copies into cache memory or waits for
 * eviction; the writer takes blocks in batches and hands each to the cache's write step (allocate a
 * slot, evicting if needed, copy, publish). When the writers fall behind, the queue fills and further
 * blocks are dropped: {@link #offer} returns false and the cache counts a failed insert. A dropped block
 * is read from disk again next time, which is the cost of never blocking a reader.
 *
 * <p>Thread safety: {@link #offer} from any thread; the queue is the hand-off.
 */
final class BucketWriter implements Runnable {
    private final BlockingQueue<PendingBlock> queue;
    private final Consumer<PendingBlock> write;
    private final Thread thread;
    private volatile boolean stopped;

    BucketWriter(String name, int queueLength, Consumer<PendingBlock> write) {
        this.queue = new ArrayBlockingQueue<>(queueLength);
        this.write = write;
        this.thread = new Thread(this, name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Queues a block for writing; false (dropped) when the queue is full or the writer stopped. */
    boolean offer(PendingBlock p) {
        return !stopped && queue.offer(p);
    }

    int queued() {
        return queue.size();
    }

    @Override
    public void run() {
        List<PendingBlock> batch = new ArrayList<>();
        while (!stopped) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                break;
            }
            queue.drainTo(batch);
            for (PendingBlock p : batch) {
                write.accept(p);
            }
            batch.clear();
        }
    }

    /** Stops the thread (queued blocks are dropped with it) and waits for it. */
    List<PendingBlock> stop() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<PendingBlock> left = new ArrayList<>();
        queue.drainTo(left);
        return left;
    }
}
