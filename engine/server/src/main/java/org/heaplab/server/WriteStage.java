package org.heaplab.server;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One stage of the staged write path: a bounded queue and the threads that run its tasks in order of
 * arrival. {@link #submit} blocks while the queue is full, which is how a slow later stage holds back
 * an earlier one (backpressure) instead of letting queues grow without bound.
 *
 * <p>Thread safety: {@link #submit} from any thread; {@link #close} once. Tasks must not throw (a task
 * that does is logged and the thread goes on).
 */
final class WriteStage implements AutoCloseable {
    private static final Runnable STOP = () -> { };

    private final String name;
    private final BlockingQueue<Runnable> queue;
    private final Thread[] threads;

    WriteStage(String name, int threadCount, int capacity) {
        if (threadCount < 1 || capacity < 1) {
            throw new IllegalArgumentException(name + ": threads and queue length must be >= 1");
        }
        this.name = name;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.threads = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++) {
            threads[i] = new Thread(this::run, threadCount == 1 ? name : name + "-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
    }

    /** Queues {@code task}; blocks while the queue is full. */
    void submit(Runnable task) throws InterruptedException {
        queue.put(task);
    }

    /** Tasks waiting (not yet taken by a thread). */
    int queued() {
        return queue.size();
    }

    private void run() {
        while (true) {
            Runnable task;
            try {
                task = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (task == STOP) {
                return;
            }
            try {
                task.run();
            } catch (Throwable t) {
                ServerLog.error(name + ": task failed: " + t);
            }
        }
    }

    /** Runs every queued task, then stops the threads (bounded wait). */
    @Override
    public void close() {
        try {
            for (int i = 0; i < threads.length; i++) {
                if (!queue.offer(STOP, 60, TimeUnit.SECONDS)) {
                    break;
                }
            }
            for (Thread t : threads) {
                t.join(60_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
