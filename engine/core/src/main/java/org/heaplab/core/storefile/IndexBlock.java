package org.heaplab.core.storefile;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.encoding.RowBytes;

/**
 * One level block of the block index (root, intermediate or leaf), and the bloom chunk index: entries
 * naming a block by location and first row, with an offset table so a lookup binary-searches the
 * block's bytes directly (no decoding, no garbage).
 *
 * <pre>
 *   indexBlock := int32 entryCount
 *                 int32 entryOffset[entryCount]   (from the first entry's start)
 *                 entry*
 *   entry      := int64 blockOffset, int32 blockOnDiskSize, int16 rowLength, row
 *                                                 (row: the first row of the block the entry names)
 * </pre>
 *
 * <p>A view over bytes that never change; safe to share between threads.
 */
final class IndexBlock {
    private static final int ENTRY_FIXED = 8 + 4 + 2;

    private final ByteBuffer buf;
    private final int count;
    private final int entriesStart;

    IndexBlock(ByteBuffer buf) {
        this.buf = buf;
        this.count = buf.getInt(0);
        this.entriesStart = 4 + 4 * count;
    }

    int count() {
        return count;
    }

    private int entry(int i) {
        return entriesStart + buf.getInt(4 + 4 * i);
    }

    long blockOffset(int i) {
        return buf.getLong(entry(i));
    }

    int onDiskSize(int i) {
        return buf.getInt(entry(i) + 8);
    }

    BlockLocation location(int i) {
        return new BlockLocation(blockOffset(i), onDiskSize(i));
    }

    /** Compares entry {@code i}'s first row with {@code row}. */
    int compareRow(int i, byte[] row) {
        int e = entry(i);
        return RowBytes.compare(buf, e + ENTRY_FIXED, buf.getShort(e + 12) & 0xffff, row);
    }

    byte[] row(int i) {
        int e = entry(i);
        byte[] row = new byte[buf.getShort(e + 12) & 0xffff];
        buf.get(e + ENTRY_FIXED, row, 0, row.length);
        return row;
    }

    /**
     * The block index lookup: the last entry whose first row is strictly before {@code row} (a row may
     * begin in that block and continue in the next ones), or 0 when there is none. Needs count > 0.
     */
    int searchBefore(byte[] row) {
        int lo = 0;
        int hi = count - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compareRow(mid, row) < 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** The bloom chunk lookup: the last entry whose first row is <= {@code row}, or -1 when there is none. */
    int searchAtOrBefore(byte[] row) {
        int lo = 0;
        int hi = count - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compareRow(mid, row) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Collects entries and encodes them in the layout above. */
    static final class Builder {
        private final List<BlockLocation> locations = new ArrayList<>();
        private final List<byte[]> rows = new ArrayList<>();
        private int encodedSize = 4;

        void add(BlockLocation location, byte[] firstRow) {
            if (firstRow.length > Short.MAX_VALUE) {
                throw new IllegalArgumentException("row longer than " + Short.MAX_VALUE);
            }
            locations.add(location);
            rows.add(firstRow);
            encodedSize += entrySize(firstRow);
        }

        /** Bytes one more entry for {@code firstRow} costs (entry plus its offset slot). */
        static int entrySize(byte[] firstRow) {
            return 4 + ENTRY_FIXED + firstRow.length;
        }

        int count() {
            return rows.size();
        }

        int encodedSize() {
            return encodedSize;
        }

        byte[] firstRow() {
            return rows.get(0);
        }

        BlockLocation location(int i) {
            return locations.get(i);
        }

        byte[] row(int i) {
            return rows.get(i);
        }

        byte[] toBytes() {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream(encodedSize);
                DataOutputStream out = new DataOutputStream(bytes);
                out.writeInt(rows.size());
                int offset = 0;
                for (byte[] row : rows) {
                    out.writeInt(offset);
                    offset += ENTRY_FIXED + row.length;
                }
                for (int i = 0; i < rows.size(); i++) {
                    out.writeLong(locations.get(i).offset());
                    out.writeInt(locations.get(i).onDiskSize());
                    out.writeShort(rows.get(i).length);
                    out.write(rows.get(i));
                }
                out.flush();
                return bytes.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e); // in-memory stream: cannot happen
            }
        }
    }
}
