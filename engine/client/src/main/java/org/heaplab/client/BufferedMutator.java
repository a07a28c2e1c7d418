package org.heaplab.client;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Buffers puts client side and sends them as one batch once the buffered cells exceed the write
 * buffer (HBase's BufferedMutator with hbase.client.write.buffer, 2 MB by default), on
 * {@link #flush()} and on {@link #close()}. Writes are acknowledged only when their batch is sent.
 *
 * <p>Thread safety: one mutator per thread (PE gives each client thread its own).
 */
public final class BufferedMutator implements Closeable {
    public static final long DEFAULT_WRITE_BUFFER = 2L * 1024 * 1024;

    private final Table table;
    private final long bufferBytes;
    private final List<Put> buffer = new ArrayList<>();
    private long buffered;

    BufferedMutator(Table table, long bufferBytes) {
        if (bufferBytes <= 0) {
            throw new IllegalArgumentException("write buffer must be positive, got " + bufferBytes);
        }
        this.table = table;
        this.bufferBytes = bufferBytes;
    }

    /** Buffers {@code put}; sends the buffer when it is full. @return true when this call sent a batch */
    public boolean mutate(Put put) throws IOException {
        buffer.add(put);
        buffered += put.heapSize();
        if (buffered >= bufferBytes) {
            flush();
            return true;
        }
        return false;
    }

    public void flush() throws IOException {
        if (buffer.isEmpty()) {
            return;
        }
        table.put(buffer);
        buffer.clear();
        buffered = 0;
    }

    @Override
    public void close() throws IOException {
        flush();
    }
}
