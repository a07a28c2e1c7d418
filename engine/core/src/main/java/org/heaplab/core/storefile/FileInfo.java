package org.heaplab.core.storefile;

import java.nio.ByteBuffer;

/**
 * The FILE_INFO block, read at open and kept by the reader:
 *
 * <pre>
 *   fileInfo := int16 firstRowLength, firstRow      (empty for a file without cells)
 *               int16 lastRowLength, lastRow
 *               int32 bloomHashCount                (0 without a bloom filter)
 *               int32 bloomChunkIndexLength
 *               bloomChunkIndex                     (IndexBlock layout: chunk location + first row;
 *                                                    absent (length 0) without a bloom filter)
 * </pre>
 */
record FileInfo(byte[] firstRow, byte[] lastRow, int bloomHashCount, byte[] bloomChunkIndex) {
    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(2 + firstRow.length + 2 + lastRow.length + 8 + bloomChunkIndex.length);
        b.putShort((short) firstRow.length).put(firstRow);
        b.putShort((short) lastRow.length).put(lastRow);
        b.putInt(bloomHashCount).putInt(bloomChunkIndex.length).put(bloomChunkIndex);
        return b.array();
    }

    static FileInfo decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte[] first = new byte[b.getShort() & 0xffff];
        b.get(first);
        byte[] last = new byte[b.getShort() & 0xffff];
        b.get(last);
        int hashCount = b.getInt();
        byte[] chunkIndex = new byte[b.getInt()];
        b.get(chunkIndex);
        return new FileInfo(first, last, hashCount, chunkIndex);
    }
}
