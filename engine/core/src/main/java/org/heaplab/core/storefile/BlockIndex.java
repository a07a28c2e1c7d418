package org.heaplab.core.storefile;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A store file's single-level block index: per data block its offset, on-disk size and first key
 * (the key part of its first KeyValue), plus the file's last key. Layout in {@link StoreFileWriter}.
 *
 * <p>Immutable once built; safe to share between threads.
 */
public final class BlockIndex {
    private final long[] offsets;
    private final int[] sizes;
    private final byte[][] firstKeys;
    private final byte[] lastKey;

    BlockIndex(long[] offsets, int[] sizes, byte[][] firstKeys, byte[] lastKey) {
        this.offsets = offsets;
        this.sizes = sizes;
        this.firstKeys = firstKeys;
        this.lastKey = lastKey;
    }

    /** Collects entries while a file is written. */
    static final class Builder {
        private final List<Long> offsets = new ArrayList<>();
        private final List<Integer> sizes = new ArrayList<>();
        private final List<byte[]> firstKeys = new ArrayList<>();

        void add(long offset, int size, byte[] firstKey) {
            offsets.add(offset);
            sizes.add(size);
            firstKeys.add(firstKey);
        }

        BlockIndex build(byte[] lastKey) {
            return new BlockIndex(offsets.stream().mapToLong(Long::longValue).toArray(),
                sizes.stream().mapToInt(Integer::intValue).toArray(), firstKeys.toArray(new byte[0][]),
                lastKey == null ? new byte[0] : lastKey);
        }
    }

    public int blockCount() {
        return offsets.length;
    }

    public long offset(int block) {
        return offsets[block];
    }

    public int size(int block) {
        return sizes[block];
    }

    /** The first block that may hold {@code row}, or -1 when no block can (row outside the file). */
    public int firstBlockFor(byte[] row) {
        if (offsets.length == 0 || compareRow(lastKey, row) < 0 || compareRow(firstKeys[0], row) > 0) {
            return -1;
        }
        // the last block whose first row is strictly below row: row may begin inside it
        int lo = 0;
        int hi = offsets.length - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compareRow(firstKeys[mid], row) < 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** True when block {@code block} starts after {@code row} (so it and later blocks cannot hold it). */
    public boolean startsAfter(int block, byte[] row) {
        return compareRow(firstKeys[block], row) > 0;
    }

    /** Compares the row of a serialized key (short rowLength, row, ...) with {@code row}. */
    static int compareRow(byte[] key, byte[] row) {
        int len = ((key[0] & 0xff) << 8) | (key[1] & 0xff);
        return Arrays.compareUnsigned(key, 2, 2 + len, row, 0, row.length);
    }

    byte[] encode() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(offsets.length);
        for (int i = 0; i < offsets.length; i++) {
            out.writeLong(offsets[i]);
            out.writeInt(sizes[i]);
            out.writeInt(firstKeys[i].length);
            out.write(firstKeys[i]);
        }
        out.writeInt(lastKey.length);
        out.write(lastKey);
        out.flush();
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        out.writeInt((int) crc.getValue());
        return bytes.toByteArray();
    }

    static BlockIndex decode(byte[] bytes, String where) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if ((int) crc.getValue() != b.getInt(bytes.length - 4)) {
            throw new IOException("store file " + where + ": block index fails its checksum");
        }
        int n = b.getInt();
        long[] offsets = new long[n];
        int[] sizes = new int[n];
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            offsets[i] = b.getLong();
            sizes[i] = b.getInt();
            keys[i] = new byte[b.getInt()];
            b.get(keys[i]);
        }
        byte[] last = new byte[b.getInt()];
        b.get(last);
        return new BlockIndex(offsets, sizes, keys, last);
    }
}
