package org.heaplab.client;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.heaplab.core.cell.KeyValue;

/**
 * The rows of a {@link Scan}, fetched {@code caching} rows per SCAN call, region by region: each call
 * goes to the region holding the next row with the stop row clipped to that region's end, and when a
 * region is done the scan continues at its end key. The server keeps no scanner state between calls:
 * each answer carries the row to continue from, which the next call sends back, so a scanner pins no
 * server memory while the client is slow (unlike HBase's server-side scanners), and a call that fails
 * (the region moved, the server restarted) is simply located again and resent from that row.
 * {@link #next()} returns null at the end; iteration wraps I/O errors in UncheckedIOException.
 *
 * <p>Not thread safe: one scanner per thread.
 */
public final class ResultScanner implements Closeable, Iterable<Result> {
    private final Table table;
    private final byte[] stopRow;
    private final int caching;
    private final ArrayDeque<Result> buffered = new ArrayDeque<>();
    private byte[] nextStartRow;
    private boolean closed;
    private long rpcs;

    ResultScanner(Table table, Scan scan) {
        this.table = table;
        this.stopRow = scan.stopRow();
        this.caching = scan.caching();
        this.nextStartRow = scan.startRow();
    }

    /** The next row, or null when the range is exhausted (or the scanner closed). */
    public Result next() throws IOException {
        while (buffered.isEmpty()) {
            if (closed || nextStartRow == null) {
                return null;
            }
            Table.ScanBatch batch = table.scanBatch(nextStartRow, stopRow, caching);
            rpcs++;
            for (List<KeyValue> row : batch.rows()) {
                if (!row.isEmpty()) {
                    buffered.add(new Result(row));
                }
            }
            if (batch.nextStartRow() != null) {
                nextStartRow = batch.nextStartRow(); // more in this region
            } else if (Keys.regionEndsBefore(batch.regionEndKey(), stopRow)) {
                nextStartRow = batch.regionEndKey(); // on to the next region
            } else {
                nextStartRow = null; // the range is done
            }
        }
        return buffered.poll();
    }

    /** SCAN calls made so far. */
    public long rpcCount() {
        return rpcs;
    }

    @Override
    public Iterator<Result> iterator() {
        return new Iterator<>() {
            private Result next;

            @Override
            public boolean hasNext() {
                if (next == null) {
                    try {
                        next = ResultScanner.this.next();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
                return next != null;
            }

            @Override
            public Result next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Result r = next;
                next = null;
                return r;
            }
        };
    }

    /** Stops the scan; nothing to release on the server. */
    @Override
    public void close() {
        closed = true;
        buffered.clear();
    }
}
