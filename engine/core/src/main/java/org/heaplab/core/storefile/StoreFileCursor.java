package org.heaplab.core.storefile;

import java.io.IOException;
import org.heaplab.core.cache.ReadScope;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellCursor;
import org.heaplab.core.encoding.BlockSeeker;
import org.heaplab.core.encoding.Encodings;

/**
 * A forward cursor over one store file from a start row (for scans): the block index positions it on
 * the first block that may hold the start row, the encoding's seeker on the first cell >= it; it then
 * walks cell by cell and block by block, each data block read through the cache and held by the read's
 * scope as the read path says.
 *
 * <p>Not thread safe.
 */
final class StoreFileCursor implements CellCursor {
    private final StoreFileReader reader;
    private final BlockIndex.Cursor blocks;
    private final ReadScope scope;
    private BlockSeeker seeker;
    private Cell current;

    StoreFileCursor(StoreFileReader reader, BlockIndex.Cursor blocks, byte[] startRow, ReadScope scope)
        throws IOException {
        this.reader = reader;
        this.blocks = blocks;
        this.scope = scope;
        if (blocks == null) {
            return; // a file without cells
        }
        seeker = seekerFor(blocks);
        // the start row may lie after every cell of the first candidate block: then it is in the next
        while (!seeker.seekToRow(startRow)) {
            if (!blocks.next()) {
                seeker = null;
                return;
            }
            seeker = seekerFor(blocks);
        }
        current = seeker.current();
    }

    private BlockSeeker seekerFor(BlockIndex.Cursor at) throws IOException {
        return Encodings.seeker(reader.encoding(), reader.dataBlock(at.location(), scope).data());
    }

    @Override
    public Cell peek() {
        return current;
    }

    @Override
    public void advance() throws IOException {
        if (seeker == null) {
            return;
        }
        if (!seeker.next()) {
            if (!blocks.next()) {
                seeker = null;
                current = null;
                return;
            }
            seeker = seekerFor(blocks);
        }
        current = seeker.current();
    }
}
