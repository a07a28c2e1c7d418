package org.heaplab.core.region;

import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;

/**
 * A request's cells made into {@link Put}s, one per row: stands for HBase's ProtobufUtil.toPut, which
 * the region server's RSRpcServices runs on the handler for every mutation of a request (a MutationProto
 * and its cells to a Put with its family map). Here in core so that every writer (the RPC handler,
 * increments, deletes, tests) goes through the same objects.
 *
 * <p>Rows: a new Put begins at each cell whose row differs from the previous cell's, as the client
 * sends one mutation's cells together; a row sent twice in one request is two Puts, as in HBase.
 */
public final class PutDecoder {
    private PutDecoder() {
    }

    /** One Put per run of cells of the same row, in request order. */
    public static List<Put> toPuts(List<? extends Cell> cells) {
        List<Put> puts = new ArrayList<>(cells.size() == 1 ? 1 : 4);
        Put current = null;
        for (int i = 0; i < cells.size(); i++) { // indexed: no iterator per request
            Cell c = cells.get(i);
            if (current == null || CellComparator.compareRow(c, current.row()) != 0) {
                current = toPut(c);
                puts.add(current);
            }
            current.add(c);
        }
        return puts;
    }

    /**
     * The Put of {@code first}'s row: the row copied out of the request, as toPut's
     * {@code proto.getRow().toByteArray()} does, which the Put then copies again as its own.
     */
    private static Put toPut(Cell first) {
        return new Put(first.row());
    }
}
