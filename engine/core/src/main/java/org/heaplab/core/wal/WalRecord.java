package org.heaplab.core.wal;

import java.util.List;
import org.heaplab.core.cell.KeyValue;

/**
 * One WAL edit: a batch of cells of one region, under one sequence id. Encoded by {@link ChannelWalSink},
 * decoded by {@link WalReader}.
 *
 * @param seqId        server-wide sequence id, strictly increasing in WAL order
 * @param table        table name
 * @param region       the region's encoded name
 * @param cells        the batch, in the order it was written
 */
public record WalRecord(long seqId, String table, String region, List<KeyValue> cells) {
    public WalRecord {
        cells = List.copyOf(cells);
    }
}
