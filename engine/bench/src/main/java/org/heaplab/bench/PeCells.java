package org.heaplab.bench;

import java.nio.ByteBuffer;
import java.util.Random;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.tools.PeData;

/**
 * Cells shaped like the lab's {@code pe} writes ({@link PeData}): a 26-digit zero-padded random row,
 * family {@code info0}, qualifier {@code 0}, a value of {@code valueSize} letters. Built before the
 * measurement so that a benchmark op measures the insert or append, not the data generation.
 *
 * <p>{@link #requestViews} lays the cells out back to back in one buffer, as an RPC request carries
 * them, and returns views into it: a memstore must copy such a cell (exactly one copy per insert, as
 * on the server's write path), whereas a cell that owns its whole array would be kept as it is.
 */
final class PeCells {
    /** Rows are drawn from [0, TOTAL_ROWS), as {@code pe --rows} would with a large table. */
    static final int TOTAL_ROWS = 10_000_000;
    /** A fixed timestamp: the server would have stamped LATEST_TIMESTAMP cells before the insert. */
    static final long TIMESTAMP = 1_700_000_000_000L;

    private PeCells() {
    }

    /** One PE-like cell in its own array. */
    static KeyValue cell(Random random, int valueSize) {
        byte[] row = PeData.rowKey(PeData.randomRow(random, TOTAL_ROWS));
        return KeyValue.create(row, PeData.FAMILY, PeData.QUALIFIER, TIMESTAMP, KeyValue.Type.PUT,
            PeData.value(random, valueSize));
    }

    /**
     * {@code n} cells back to back in one request buffer, returned as views into it: heap
     * ({@link KeyValue} slices, the 1.x decoder's shape) or direct ({@link ByteBufferKeyValue}, the 2.x
     * pooled request buffer's shape).
     */
    static Cell[] requestViews(long seed, int n, int valueSize, boolean direct) {
        Random random = new Random(seed);
        KeyValue[] own = new KeyValue[n];
        int total = 0;
        for (int i = 0; i < n; i++) {
            own[i] = cell(random, valueSize);
            total += own[i].getLength();
        }
        Cell[] views = new Cell[n];
        if (direct) {
            ByteBuffer buf = ByteBuffer.allocateDirect(total);
            int at = 0;
            for (int i = 0; i < n; i++) {
                buf.put(at, own[i].getBuffer(), own[i].getOffset(), own[i].getLength());
                views[i] = new ByteBufferKeyValue(buf, at, own[i].getLength());
                at += own[i].getLength();
            }
        } else {
            byte[] buf = new byte[total];
            int at = 0;
            for (int i = 0; i < n; i++) {
                own[i].copyTo(buf, at);
                views[i] = new KeyValue(buf, at, own[i].getLength());
                at += own[i].getLength();
            }
        }
        return views;
    }
}
