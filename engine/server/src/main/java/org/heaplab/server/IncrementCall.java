package org.heaplab.server;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.Put;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.ServerCall;

/**
 * INCREMENT (HBase's Increment of one column): an atomic read-modify-write of a 64-bit big-endian
 * counter (HBase's Bytes.toBytes(long)), WAL-logged like any put.
 *
 * <pre>
 *   lock the row's increment lock (striped per region)
 *     read the column's newest value (absent: 0; not 8 bytes: ILLEGAL_ARGUMENT)
 *     put value + delta through the server's normal WritePath (WAL append and sync as the durability
 *       asks, then the memstore) and wait until it is visible
 *   unlock, answer long newValue
 * </pre>
 *
 * The new cell's timestamp is max(now, old timestamp + 1), so it always supersedes the value it was
 * computed from. Increments of one row are serialized; a plain PUT to the same column is NOT blocked by
 * the lock (as in this engine's puts, which take only the row lock of the write): mixing both on a
 * counter loses updates.
 *
 * <p>Thread safety: called by every handler at once.
 */
final class IncrementCall {
    private final LongAdder increments = new LongAdder();

    /** string table, bytes row, bytes family, bytes qualifier, long delta, int durability -> long newValue. */
    RpcService.Reply call(OnlineRegions regions, WritePath writePath, Request request) throws IOException {
        ParamReader in = request.paramReader();
        String table = in.readString();
        byte[] row = in.readBytes();
        byte[] family = in.readBytes();
        byte[] qualifier = in.readBytes();
        long delta = in.readLong();
        Durability durability = in.hasRemaining() ? Durability.fromCode(in.readInt()) : Durability.USE_DEFAULT;
        if (row.length == 0) {
            throw new IllegalArgumentException("increment needs a row");
        }
        long next;
        Lock lock = regions.incrementLock(table, row);
        lock.lock();
        try {
            long current = 0;
            long ts = System.currentTimeMillis();
            try (ReadScope scope = new ReadScope()) {
                for (Cell c : regions.get(table, row, List.of(qualifier), scope)) {
                    if (c.valueLength() != Long.BYTES) {
                        throw new IllegalArgumentException("column " + new String(family) + ":" + new String(qualifier)
                            + " of row " + new String(row) + " holds " + c.valueLength() + " bytes, not a 64-bit counter");
                    }
                    current = c.serializedView().getLong(c.getSerializedLength() - Long.BYTES);
                    ts = Math.max(ts, c.timestamp() + 1);
                }
            }
            next = current + delta;
            KeyValue kv = KeyValue.create(row, family, qualifier, ts, KeyValue.Type.PUT,
                ByteBuffer.allocate(Long.BYTES).putLong(next).array());
            LocalCall put = new LocalCall();
            writePath.put(table, List.of(new Put(row).add(kv)), durability, put); // the Put HRegion builds of the result
            put.await();
        } finally {
            lock.unlock();
        }
        increments.increment();
        return RpcService.Reply.of(new ParamWriter().writeLong(next));
    }

    long increments() {
        return increments.sum();
    }

    /**
     * The write path's answer to the increment's own put, awaited by the handler. The cells are the
     * increment's own heap KeyValue, so nothing needs holding past the answer.
     */
    private static final class LocalCall implements ServerCall {
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        public void reply(RpcService.Reply reply) {
            done.complete(null);
        }

        @Override
        public void fail(Throwable t) {
            done.completeExceptionally(t);
        }

        @Override
        public void holdRequestUntil(CompletableFuture<?> f) {
            // the cell is our own heap copy
        }

        @Override
        public void closeAfterResponse(AutoCloseable resource) {
            done.whenComplete((v, e) -> {
                try {
                    resource.close();
                } catch (Exception ignored) {
                    // best effort
                }
            });
        }

        void await() throws IOException {
            try {
                done.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while writing the increment");
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof IOException io) {
                    throw io;
                }
                if (c instanceof RuntimeException re) {
                    throw re;
                }
                throw new IOException(c.getMessage(), c);
            }
        }
    }
}
