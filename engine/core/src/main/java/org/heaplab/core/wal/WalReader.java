package org.heaplab.core.wal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import java.util.zip.CRC32C;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.StorageConstants;

/**
 * Decodes what {@link ChannelWalSink} writes (the format is at the top of that class), one record at a time.
 *
 * <p>Damage handling: a record that is incomplete, or whose checksum fails, and that ends exactly at
 * the end of the file is a torn tail (the process died mid-append). In the newest WAL file a torn
 * tail is truncated away with a warning, and reading ends there. Anywhere else (a bad record followed
 * by more bytes, or any damage in an older file) the reader throws an IOException naming the file and
 * the byte offset of the bad record: replaying past it would silently lose acknowledged edits.
 *
 * <p>Thread safety: not thread safe; one reader per file, used by one thread.
 */
public final class WalReader implements Closeable {
    private static final Logger LOG = Logger.getLogger(WalReader.class.getName());

    private final Path path;
    private final FileChannel channel;
    private final boolean truncateTornTail;
    private final long fileLength;
    private long position;

    private WalReader(Path path, FileChannel channel, boolean truncateTornTail) throws IOException {
        this.path = path;
        this.channel = channel;
        this.truncateTornTail = truncateTornTail;
        this.fileLength = channel.size();
    }

    /**
     * Opens a WAL file for reading.
     *
     * @param truncateTornTail true for the newest file: repair a torn tail instead of failing
     */
    public static WalReader open(Path path, boolean truncateTornTail) throws IOException {
        FileChannel ch = FileChannel.open(path, truncateTornTail
            ? new StandardOpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
            : new StandardOpenOption[] {StandardOpenOption.READ});
        WalReader r = new WalReader(path, ch, truncateTornTail);
        try {
            r.readHeader();
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return r;
    }

    private void readHeader() throws IOException {
        if (fileLength < StorageConstants.WAL_HEADER_SIZE) {
            if (truncateTornTail) {
                // the process died while creating the file: nothing in it was ever acknowledged
                LOG.warning("WAL " + path + " has a torn header (" + fileLength + " bytes); treating it as empty");
                position = fileLength;
                return;
            }
            throw new IOException("WAL " + path + " is too short for its header at offset 0");
        }
        ByteBuffer h = read(0, StorageConstants.WAL_HEADER_SIZE);
        if (h.getLong() != StorageConstants.WAL_MAGIC) {
            throw new IOException("WAL " + path + " has a bad magic number at offset 0");
        }
        position = StorageConstants.WAL_HEADER_SIZE;
    }

    /** The next record, or null at the end of the file (after truncating a torn tail if allowed). */
    public WalRecord next() throws IOException {
        if (position >= fileLength) {
            return null;
        }
        long start = position;
        long remaining = fileLength - start;
        if (remaining < StorageConstants.WAL_RECORD_HEADER_SIZE) {
            return tornTail(start, "incomplete record header");
        }
        ByteBuffer header = read(start, StorageConstants.WAL_RECORD_HEADER_SIZE);
        int bodyLength = header.getInt();
        int crc = header.getInt();
        if (bodyLength <= 0 || bodyLength > StorageConstants.WAL_MAX_RECORD_SIZE) {
            if (remaining - StorageConstants.WAL_RECORD_HEADER_SIZE <= 0) {
                return tornTail(start, "bad record length " + bodyLength);
            }
            throw corrupt(start, "bad record length " + bodyLength);
        }
        long end = start + StorageConstants.WAL_RECORD_HEADER_SIZE + bodyLength;
        if (end > fileLength) {
            return tornTail(start, "record of " + bodyLength + " bytes cut off at end of file");
        }
        ByteBuffer body = read(start + StorageConstants.WAL_RECORD_HEADER_SIZE, bodyLength);
        CRC32C c = new CRC32C();
        c.update(body.array(), 0, bodyLength);
        if ((int) c.getValue() != crc) {
            if (end == fileLength) {
                return tornTail(start, "checksum mismatch in the last record");
            }
            throw corrupt(start, "checksum mismatch");
        }
        WalRecord record;
        try {
            record = decodeBody(body);
        } catch (RuntimeException e) {
            throw corrupt(start, "undecodable record body (" + e.getMessage() + ")");
        }
        position = end;
        return record;
    }

    /** Decodes a record body whose checksum has been verified. */
    static WalRecord decodeBody(ByteBuffer body) {
        long seqId = body.getLong();
        String table = string(body);
        String region = string(body);
        int count = body.getInt();
        if (count < 0) {
            throw new IllegalArgumentException("negative cell count");
        }
        List<KeyValue> cells = new ArrayList<>(Math.min(count, 1024));
        byte[] array = body.array();
        for (int i = 0; i < count; i++) {
            int off = body.position();
            int len = KeyValue.serializedLength(array, off);
            if (len < 0 || off + len > body.limit()) {
                throw new IllegalArgumentException("cell " + i + " overruns the record");
            }
            cells.add(new KeyValue(array, off, len));
            body.position(off + len);
        }
        if (body.hasRemaining()) {
            throw new IllegalArgumentException(body.remaining() + " trailing bytes");
        }
        return new WalRecord(seqId, table, region, cells);
    }

    private static String string(ByteBuffer b) {
        int len = b.getShort();
        if (len < 0 || len > b.remaining()) {
            throw new IllegalArgumentException("bad name length " + len);
        }
        byte[] s = new byte[len];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    private WalRecord tornTail(long offset, String why) throws IOException {
        if (!truncateTornTail) {
            throw corrupt(offset, why + " in a WAL file that is not the newest");
        }
        LOG.warning("WAL " + path + ": torn tail at offset " + offset + " (" + why + "); truncating "
            + (fileLength - offset) + " bytes");
        channel.truncate(offset);
        channel.force(true);
        position = fileLength;
        return null;
    }

    private IOException corrupt(long offset, String why) {
        return new IOException("corrupt WAL " + path + " at offset " + offset + ": " + why);
    }

    private ByteBuffer read(long offset, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            if (channel.read(b, offset + b.position()) < 0) {
                throw new IOException("WAL " + path + " ended early at offset " + (offset + b.position()));
            }
        }
        b.flip();
        return b;
    }

    public Path path() {
        return path;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
