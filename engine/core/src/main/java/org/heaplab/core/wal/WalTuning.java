package org.heaplab.core.wal;

import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The sizes and intervals of a {@link GroupCommitWal}, with HBase's key names where HBase has the concept.
 *
 * @param syncerCount   threads that force the file (hbase.regionserver.hlog.syncer.count), at least 1
 * @param ringSize      ring slots, a power of two (hbase.regionserver.wal.disruptor.event.count)
 * @param asyncFlushMs  longest time an ASYNC_WAL append waits for a sync when nothing else syncs
 *                      (hbase.regionserver.optionallogflushinterval), above 0
 * @param batchBytes    unflushed bytes at which the consumer has them written even with no sync waiting
 *                      (hbase.wal.batch.size)
 * @param maxBufferedBytes unflushed bytes at which the consumer stops taking appends until the file caught
 *                      up: the ring fills and handlers block (backpressure; HBase gets it from its output
 *                      stream), at least batchBytes
 */
public record WalTuning(int syncerCount, int ringSize, long asyncFlushMs, long batchBytes, long maxBufferedBytes) {
    public static final String SYNCER_COUNT = "hbase.regionserver.hlog.syncer.count";
    public static final int DEFAULT_SYNCER_COUNT = 5;
    public static final String RING_SIZE = "hbase.regionserver.wal.disruptor.event.count";
    public static final int DEFAULT_RING_SIZE = 16 * 1024;
    public static final String ASYNC_FLUSH_INTERVAL = "hbase.regionserver.optionallogflushinterval";
    public static final long DEFAULT_ASYNC_FLUSH_INTERVAL = 1000;
    public static final String BATCH_SIZE = "hbase.wal.batch.size";
    public static final long DEFAULT_BATCH_SIZE = 64 * 1024;
    public static final String MAX_BUFFERED = "heaplab.regionserver.wal.max.buffered.bytes";
    public static final long DEFAULT_MAX_BUFFERED = 32L * 1024 * 1024;

    /** @throws ConfigurationException naming the key of the first value out of range */
    public WalTuning {
        if (syncerCount < 1) {
            throw new ConfigurationException(SYNCER_COUNT + " must be >= 1, got " + syncerCount);
        }
        if (asyncFlushMs <= 0) {
            throw new ConfigurationException(ASYNC_FLUSH_INTERVAL + " must be > 0, got " + asyncFlushMs);
        }
        if (batchBytes < 1 || maxBufferedBytes < batchBytes) {
            throw new ConfigurationException(BATCH_SIZE + " must be >= 1 and " + MAX_BUFFERED + " >= it, got "
                + batchBytes + " and " + maxBufferedBytes);
        }
    }

    /** The given thread and ring sizes, the default buffering bounds. */
    public static WalTuning of(int syncerCount, int ringSize, long asyncFlushMs) {
        return new WalTuning(syncerCount, ringSize, asyncFlushMs, DEFAULT_BATCH_SIZE, DEFAULT_MAX_BUFFERED);
    }

    /** The values {@code conf} sets, defaults for the rest. */
    public static WalTuning fromConf(Configuration conf) {
        return new WalTuning(conf.getInt(SYNCER_COUNT, DEFAULT_SYNCER_COUNT), conf.getInt(RING_SIZE, DEFAULT_RING_SIZE),
            conf.getLong(ASYNC_FLUSH_INTERVAL, DEFAULT_ASYNC_FLUSH_INTERVAL), conf.getLong(BATCH_SIZE, DEFAULT_BATCH_SIZE),
            conf.getLong(MAX_BUFFERED, DEFAULT_MAX_BUFFERED));
    }
}
