package org.heaplab.core.wal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.StorageConstants;

/**
 * The WAL format of {@link ChannelWalSink}'s grammar, laid out the plain way (one heap buffer per
 * record, the CRC over the finished body): the reference the sink's chunked encoding is compared with,
 * byte for byte. Kept apart from the sink on purpose, so that a mistake in its chunking cannot hide in
 * both sides of the comparison.
 */
final class WalFileBytes {
    private WalFileBytes() {
    }

    /** A whole file: the header, then every record in order. */
    static byte[] file(List<WalRecord> records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer header = ByteBuffer.allocate(StorageConstants.WAL_HEADER_SIZE).putLong(StorageConstants.WAL_MAGIC);
        out.write(header.array(), 0, header.capacity());
        for (WalRecord r : records) {
            ByteBuffer b = record(r);
            out.write(b.array(), 0, b.remaining());
        }
        return out.toByteArray();
    }

    /** One record (its length and CRC, then its body) as it appears in the file. */
    static ByteBuffer record(WalRecord record) {
        byte[] table = record.table().getBytes(StandardCharsets.UTF_8);
        byte[] region = record.region().getBytes(StandardCharsets.UTF_8);
        int cellBytes = 0;
        for (KeyValue c : record.cells()) {
            cellBytes += c.getSerializedLength();
        }
        int bodyLength = 8 + 2 + table.length + 2 + region.length + 4 + cellBytes;
        ByteBuffer b = ByteBuffer.allocate(StorageConstants.WAL_RECORD_HEADER_SIZE + bodyLength);
        b.putInt(bodyLength).putInt(0);
        b.putLong(record.seqId());
        b.putShort((short) table.length).put(table);
        b.putShort((short) region.length).put(region);
        b.putInt(record.cells().size());
        for (KeyValue c : record.cells()) {
            b.put(c.serializedView());
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), StorageConstants.WAL_RECORD_HEADER_SIZE, bodyLength);
        b.putInt(4, (int) crc.getValue());
        return b.flip();
    }
}
