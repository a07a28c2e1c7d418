package org.heaplab.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.ScanBatch;
import org.heaplab.rpc.protocol.MalformedFrameException;
import org.heaplab.rpc.protocol.ParamReader;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.protocol.RowsCodec;
import org.heaplab.rpc.server.RpcService.Reply;
import org.heaplab.rpc.server.ServerCall;

/**
 * The read RPCs: GET, MULTI_GET and SCAN (params in engine/docs/wire-protocol.md). Each call opens one
 * {@link ReadScope} and registers it with {@link ServerCall#closeAfterResponse} BEFORE reading, so the
 * cache blocks a zero-copy read holds are released exactly once, after the response is written (or
 * the error is), whatever happens in between.
 *
 * <p>Counters: the storage engine counts gets and scanned rows (OnlineRegions.readCounters); this class
 * counts SCAN calls (admin metrics reads.scan_batches).
 *
 * <p>Thread safety: called by every handler at once; the counters are LongAdders.
 */
final class ReadCalls {
    static final int MAX_QUALIFIERS = 10_000;
    static final int MAX_ROWS = 100_000;

    private final LongAdder scanBatches = new LongAdder();

    /** Answers a read call; never throws (failures are answered through {@code call}). */
    void call(OnlineRegions regions, Request request, ServerCall call) {
        ReadScope scope = new ReadScope();
        call.closeAfterResponse(scope); // first: released after the write on every path
        Reply reply;
        try {
            ParamReader in = request.paramReader();
            reply = switch (request.method()) {
                case GET -> get(regions, in, scope);
                case MULTI_GET -> multiGet(regions, in, scope);
                case SCAN -> scan(regions, in, scope);
                default -> throw new IllegalStateException(request.method() + " is not a read");
            };
        } catch (Throwable t) {
            call.fail(t);
            return;
        }
        call.reply(reply);
    }

    /** GET: string table, bytes row, [int n, n x bytes qualifier] (absent or 0: every column). */
    private Reply get(OnlineRegions regions, ParamReader in, ReadScope scope) throws IOException {
        String table = in.readString();
        byte[] row = in.readBytes();
        List<byte[]> qualifiers = in.hasRemaining() ? qualifiers(in) : List.of();
        return new Reply(new byte[0], regions.get(table, row, qualifiers, scope));
    }

    /**
     * MULTI_GET: string table, int n, n x (bytes row, int q, q x bytes qualifier); answers RowsCodec
     * counts and the cells, rows in request order.
     */
    private Reply multiGet(OnlineRegions regions, ParamReader in, ReadScope scope) throws IOException {
        String table = in.readString();
        int n = in.readCount(MAX_ROWS);
        List<byte[]> rows = new ArrayList<>(n);
        List<List<byte[]>> qualifiers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(in.readBytes());
            qualifiers.add(qualifiers(in));
        }
        List<List<Cell>> result = regions.multiGet(table, rows, qualifiers, scope);
        ParamWriter w = new ParamWriter();
        RowsCodec.writeCounts(w, result);
        return new Reply(w.toByteArray(), RowsCodec.flatten(result));
    }

    /**
     * SCAN: string table, bytes startRow (inclusive), bytes stopRow (exclusive; empty = to the end), int
     * caching (rows in this batch); answers RowsCodec counts, boolean more, [bytes nextStartRow when more].
     */
    private Reply scan(OnlineRegions regions, ParamReader in, ReadScope scope) throws IOException {
        String table = in.readString();
        byte[] start = in.readBytes();
        byte[] stop = in.readBytes();
        int caching = in.readInt();
        if (caching < 1 || caching > MAX_ROWS) {
            throw new IllegalArgumentException("scan caching must be in 1.." + MAX_ROWS + ", got " + caching);
        }
        ScanBatch batch = regions.scan(table, start, stop, caching, scope);
        scanBatches.increment();
        ParamWriter w = new ParamWriter();
        RowsCodec.writeCounts(w, batch.rows());
        w.writeBoolean(batch.nextStartRow() != null);
        if (batch.nextStartRow() != null) {
            w.writeBytes(batch.nextStartRow());
        }
        return new Reply(w.toByteArray(), RowsCodec.flatten(batch.rows()));
    }

    static List<byte[]> qualifiers(ParamReader in) throws MalformedFrameException {
        int n = in.readCount(MAX_QUALIFIERS);
        List<byte[]> q = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            q.add(in.readBytes());
        }
        return q;
    }

    long scanBatches() {
        return scanBatches.sum();
    }
}
