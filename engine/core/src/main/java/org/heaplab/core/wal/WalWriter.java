package org.heaplab.core.wal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.io.StorageConstants;

/**
 * Appends {@link WalRecord}s to one WAL file.
 *
 * <pre>
 * WAL file, big-endian:
 *   file    := header record*
 *   header  := int64 magic                       (StorageConstants.WAL_MAGIC, "HLWAL" v1)
 *   record  := int32 bodyLength                  (bytes of body; 0 &lt; bodyLength &lt;= WAL_MAX_RECORD_SIZE)
 *              int32 crc32c                      (CRC32C of the body bytes)
 *              body
 *   body    := int64 seqId
 *              int16 tableLength, table bytes    (UTF-8)
 *              int16 regionLength, region bytes  (UTF-8, the region's encoded name)
 *              int32 cellCount
 *              cell{cellCount}
 *   cell    := one KeyValue (int keyLength, int valueLength, key, value: see KeyValue), self-delimiting
 * </pre>
 *
 * <p>Invariants: records are only ever appended, whole; a record is in the file (write(2) returned)
 * before {@link #append} returns, so it survives a kill -9 of the process; with {@code hsync} it is
 * also forced to the device (fdatasync). A failed append truncates the file back to the last whole
 * record, so a later append never follows a partial one. Seq ids increase along the file.
 *
 * <p>Thread safety: not thread safe; {@link Wal} serializes every call.
 */
public final class WalWriter implements Closeable {
    private final Path path;
    private final FileChannel channel;
    private final boolean hsync;
    private long length;

    private WalWriter(Path path, FileChannel channel, boolean hsync, long length) {
        this.path = path;
        this.channel = channel;
        this.hsync = hsync;
        this.length = length;
    }

    /** Creates a new WAL file (it must not exist) and writes its header durably. */
    public static WalWriter create(Path path, boolean hsync) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            ByteBuffer header = ByteBuffer.allocate(StorageConstants.WAL_HEADER_SIZE);
            header.putLong(StorageConstants.WAL_MAGIC).flip();
            writeFully(ch, header);
            ch.force(true);
            AtomicFiles.fsyncDirectory(path.toAbsolutePath().getParent());
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return new WalWriter(path, ch, hsync, StorageConstants.WAL_HEADER_SIZE);
    }

    /** Encodes a record (header and body) as it appears in the file. */
    public static ByteBuffer encode(WalRecord record) {
        return encode(record.seqId(), record.table(), record.region(), record.cells());
    }

    /**
     * Encodes a record made of {@code cells} (wherever they live: heap arrays or views over a request
     * buffer) into one new heap buffer, exactly as {@link #encode(WalRecord)}. The one copy of each cell
     * is made here; the cells are not retained.
     */
    public static ByteBuffer encode(long seqId, String table, String region, List<? extends Cell> cells) {
        byte[] tableBytes = table.getBytes(StandardCharsets.UTF_8);
        byte[] regionBytes = region.getBytes(StandardCharsets.UTF_8);
        if (tableBytes.length > Short.MAX_VALUE || regionBytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("table or region name too long");
        }
        long cellBytes = 0;
        for (Cell c : cells) {
            cellBytes += c.getSerializedLength();
        }
        long bodyLength = 8 + 2 + tableBytes.length + 2 + regionBytes.length + 4 + cellBytes;
        if (bodyLength > StorageConstants.WAL_MAX_RECORD_SIZE) {
            throw new IllegalArgumentException("WAL record of " + bodyLength + " bytes exceeds "
                + StorageConstants.WAL_MAX_RECORD_SIZE);
        }
        ByteBuffer b = ByteBuffer.allocate(StorageConstants.WAL_RECORD_HEADER_SIZE + (int) bodyLength);
        b.putInt((int) bodyLength).putInt(0);
        b.putLong(seqId);
        b.putShort((short) tableBytes.length).put(tableBytes);
        b.putShort((short) regionBytes.length).put(regionBytes);
        b.putInt(cells.size());
        for (Cell c : cells) {
            b.put(c.serializedView());
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), StorageConstants.WAL_RECORD_HEADER_SIZE, (int) bodyLength);
        b.putInt(4, (int) crc.getValue());
        b.flip();
        return b;
    }

    /** Appends one record and syncs it (see the class invariants). Returns the file length after it. */
    public long append(WalRecord record) throws IOException {
        return append(record.seqId(), record.table(), record.region(), record.cells());
    }

    /**
     * Appends one record made of {@code cells} without first copying them into one buffer: the record
     * header is built in a small heap buffer and the cells are handed to the channel as views over their
     * own memory (a gathering write), so a cell in a pooled direct request buffer goes to the file
     * straight from that buffer. The bytes written are exactly {@link #encode}'s. The cells are not
     * retained. Returns the file length after the record.
     */
    public long append(long seqId, String table, String region, List<? extends Cell> cells) throws IOException {
        byte[] tableBytes = table.getBytes(StandardCharsets.UTF_8);
        byte[] regionBytes = region.getBytes(StandardCharsets.UTF_8);
        if (tableBytes.length > Short.MAX_VALUE || regionBytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("table or region name too long");
        }
        ByteBuffer[] parts = new ByteBuffer[cells.size() + 1];
        long cellBytes = 0;
        for (int i = 0; i < cells.size(); i++) {
            parts[i + 1] = cells.get(i).serializedView();
            cellBytes += parts[i + 1].remaining();
        }
        int headerBody = 8 + 2 + tableBytes.length + 2 + regionBytes.length + 4;
        long bodyLength = headerBody + cellBytes;
        if (bodyLength > StorageConstants.WAL_MAX_RECORD_SIZE) {
            throw new IllegalArgumentException("WAL record of " + bodyLength + " bytes exceeds "
                + StorageConstants.WAL_MAX_RECORD_SIZE);
        }
        ByteBuffer h = ByteBuffer.allocate(StorageConstants.WAL_RECORD_HEADER_SIZE + headerBody);
        h.putInt((int) bodyLength).putInt(0);
        h.putLong(seqId);
        h.putShort((short) tableBytes.length).put(tableBytes);
        h.putShort((short) regionBytes.length).put(regionBytes);
        h.putInt(cells.size());
        CRC32C crc = new CRC32C();
        crc.update(h.array(), StorageConstants.WAL_RECORD_HEADER_SIZE, headerBody);
        for (int i = 1; i < parts.length; i++) {
            crc.update(parts[i].duplicate());
        }
        h.putInt(4, (int) crc.getValue());
        h.flip();
        parts[0] = h;
        long size = StorageConstants.WAL_RECORD_HEADER_SIZE + bodyLength;
        try {
            writeFully(channel, parts);
            if (hsync) {
                channel.force(false);
            }
        } catch (IOException e) {
            try {
                channel.truncate(length);
                channel.position(length);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new IOException("WAL append to " + path + " failed: " + e.getMessage(), e);
        }
        length += size;
        return length;
    }

    public long length() {
        return length;
    }

    public Path path() {
        return path;
    }

    /** Forces everything written to the device and closes the file. */
    @Override
    public void close() throws IOException {
        try {
            channel.force(true);
        } finally {
            channel.close();
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer[] parts) throws IOException {
        ByteBuffer last = parts[parts.length - 1];
        while (last.hasRemaining()) {
            ch.write(parts);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
