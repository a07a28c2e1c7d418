package org.heaplab.core.storefile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.encoding.BlockSeeker;
import org.heaplab.core.encoding.Encodings;

/**
 * Every cell of a store file in order, for compaction: walks the block index from its first data block
 * and reads each block from disk (verified, decompressed), bypassing the block cache so a compaction does
 * not push the blocks gets need out of it. Cells are heap KeyValues (views into the block just read for
 * NONE and ROW_INDEX_V1; DIFF builds one per cell). A block that cannot be read throws an
 * UncheckedIOException whose cause names the file and the block's offset.
 *
 * <p>Not thread safe.
 */
final class StoreFileScanner implements Iterator<KeyValue> {
    private final StoreFileReader reader;
    private final BlockIndex.Loader fromDisk;
    private BlockIndex.Cursor blocks;
    private BlockSeeker seeker;
    private boolean started;
    /** True while the seeker is on a cell (every data block holds at least one). */
    private boolean onCell;

    StoreFileScanner(StoreFileReader reader) {
        this.reader = reader;
        this.fromDisk = loc -> reader.readFromDisk(BlockKind.INDEX, loc);
    }

    private BlockSeeker seekerFromDisk() throws IOException {
        return Encodings.seeker(reader.encoding(), reader.readFromDisk(BlockKind.DATA, blocks.location()));
    }

    @Override
    public boolean hasNext() {
        try {
            if (!started) {
                started = true;
                blocks = reader.index().first(fromDisk);
                if (blocks != null) {
                    seeker = seekerFromDisk();
                    onCell = true;
                }
            } else if (!onCell && blocks != null && blocks.next()) {
                seeker = seekerFromDisk();
                onCell = true;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return onCell;
    }

    @Override
    public KeyValue next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Cell c = seeker.current();
        onCell = seeker.next(); // at the block's end, hasNext moves to the next block
        return c instanceof KeyValue kv ? kv : c.toOwnKeyValue();
    }
}
