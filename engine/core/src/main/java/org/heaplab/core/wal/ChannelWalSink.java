package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.io.StorageConstants;
import org.heaplab.core.util.CrashPoints;

/**
 * One WAL file: the one class that owns the WAL format and writes it ({@link WalReader} reads it back).
 * Every byte, big-endian:
 *
 * <pre>
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
 * <p>Writing is split into the three steps group commit needs (HBase's writer append / hflush / hsync,
 * see {@link WalSink}): {@link #append} lays a record out in memory ({@link WalByteArrayOutput}: a heap
 * array grown as records arrive, a new one after every flush, as standalone HBase's WAL writer buffers
 * its entries; the CRC filled in after the body), {@link #flush} writes every record appended so far
 * (write(2): it survives a kill -9 of the process), {@link #force} forces them to the device (fdatasync:
 * it survives a power loss). Cells are encoded (copied) once, from wherever they live (a heap array or a
 * view over a pooled direct request buffer), and not retained. Table and region names are encoded to
 * UTF-8 once per file.
 *
 * <p>Thread safety: {@link #append} encodes under the buffer lock; {@link #flush} holds the write
 * lock across taking the buffer and writing it, so flushes reach the file in append order.
 * {@link GroupCommitWal} owns the sink and calls it from its consumer and syncer threads.
 *
 * <p>Invariants: records are only ever appended, whole, in append order (so seq ids increase along the
 * file as the consumer stamps them). A failed write truncates the file back to the last whole record
 * and the sink is unusable afterwards (every later call throws); so is a failed force.
 */
public final class ChannelWalSink implements WalSink {
    /** Names remembered per file (a file sees its server's regions): cleared when it would grow beyond. */
    private static final int MAX_NAMES = 4096;
    /**
     * Opens a new WAL file's channel. Package-private and replaceable only so that a test can hand out a
     * channel whose force fails (a failing disk cannot be made on demand): WalForceFailureTest and the
     * server's WalAbortTest.
     */
    static volatile ChannelOpener channels = path -> FileChannel.open(path, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE);

    /** How {@link #create} opens a new file (CREATE_NEW, WRITE). */
    @FunctionalInterface
    interface ChannelOpener {
        FileChannel open(Path path) throws IOException;
    }

    private final Path path;
    private final FileChannel channel;
    private final Object bufferLock = new Object();
    private final Object writeLock = new Object();
    // under bufferLock
    private final WalByteArrayOutput buffer = new WalByteArrayOutput();
    private final CRC32C crc = new CRC32C();
    private byte[] prefix = new byte[256];
    private final Map<String, byte[]> names = new HashMap<>();
    // under writeLock
    private long length;
    private volatile IOException failure;

    private ChannelWalSink(Path path, FileChannel channel, long length) {
        this.path = path;
        this.channel = channel;
        this.length = length;
    }

    /** Creates a new WAL file (it must not exist) and writes its header durably (the file and its directory entry). */
    public static ChannelWalSink create(Path path) throws IOException {
        FileChannel ch = channels.open(path);
        try {
            CrashPoints.reach(CrashPoints.WAL_FILE_BEFORE_HEADER);
            ByteBuffer header = ByteBuffer.allocate(StorageConstants.WAL_HEADER_SIZE);
            header.putLong(StorageConstants.WAL_MAGIC).flip();
            while (header.hasRemaining()) {
                ch.write(header);
            }
            ch.force(true);
            AtomicFiles.fsyncDirectory(path.toAbsolutePath().getParent());
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return new ChannelWalSink(path, ch, StorageConstants.WAL_HEADER_SIZE);
    }

    public Path path() {
        return path;
    }

    @Override
    public void append(long seqId, String table, String region, List<? extends Cell> cells) throws IOException {
        checkUsable();
        synchronized (bufferLock) {
            byte[] tableBytes = utf8(table);
            byte[] regionBytes = utf8(region);
            if (tableBytes.length > Short.MAX_VALUE || regionBytes.length > Short.MAX_VALUE) {
                throw new IllegalArgumentException("table or region name too long");
            }
            long cellBytes = 0;
            for (int i = 0; i < cells.size(); i++) {
                cellBytes += cells.get(i).getSerializedLength();
            }
            int prefixLength = 8 + 2 + tableBytes.length + 2 + regionBytes.length + 4;
            long bodyLength = prefixLength + cellBytes;
            if (bodyLength > StorageConstants.WAL_MAX_RECORD_SIZE) {
                throw new IllegalArgumentException("WAL record of " + bodyLength + " bytes exceeds "
                    + StorageConstants.WAL_MAX_RECORD_SIZE);
            }
            ByteBuffer p = prefix(prefixLength);
            p.putLong(seqId);
            p.putShort((short) tableBytes.length).put(tableBytes);
            p.putShort((short) regionBytes.length).put(regionBytes);
            p.putInt(cells.size());
            buffer.putInt((int) bodyLength);
            int crcAt = buffer.reserveInt(); // filled in once the body is written
            crc.reset();
            crc.update(prefix, 0, prefixLength);
            buffer.put(prefix, prefixLength);
            for (int i = 0; i < cells.size(); i++) {
                ByteBuffer cell = cells.get(i).serializedView();
                crc.update(cell);
                buffer.put(cell.position(0));
            }
            buffer.setInt(crcAt, (int) crc.getValue());
        }
    }

    /** The reusable prefix array as a buffer of at least {@code n} bytes, position 0. */
    private ByteBuffer prefix(int n) {
        if (prefix.length < n) {
            prefix = new byte[Math.max(n, prefix.length * 2)];
        }
        return ByteBuffer.wrap(prefix, 0, n);
    }

    private byte[] utf8(String name) {
        byte[] b = names.get(name);
        if (b == null) {
            if (names.size() >= MAX_NAMES) {
                names.clear();
            }
            b = name.getBytes(StandardCharsets.UTF_8);
            names.put(name, b);
        }
        return b;
    }

    @Override
    public void flush() throws IOException {
        synchronized (writeLock) {
            checkUsable();
            ByteBuffer out;
            synchronized (bufferLock) {
                out = buffer.take(); // the next append starts a fresh array
            }
            write(out);
        }
    }

    /** Writes {@code out} (position to limit); writeLock held. */
    private void write(ByteBuffer out) throws IOException {
        int total = out.remaining();
        if (total == 0) {
            return;
        }
        try {
            while (out.hasRemaining()) {
                channel.write(out);
            }
        } catch (IOException e) {
            IOException f = new IOException("WAL write to " + path + " failed: " + e.getMessage(), e);
            try {
                channel.truncate(length);
                channel.position(length);
            } catch (IOException suppressed) {
                f.addSuppressed(suppressed);
            }
            failure = f;
            throw f;
        }
        length += total;
    }

    /** Forces the file; a failure makes the sink unusable (what was written may or may not be on the device). */
    @Override
    public void force() throws IOException {
        checkUsable();
        try {
            channel.force(false);
        } catch (IOException e) {
            IOException f = new IOException("WAL force (fsync) of " + path + " failed: " + e.getMessage(), e);
            failure = f;
            throw f;
        }
    }

    /** Bytes in the file (header and every flushed record). */
    public long length() {
        synchronized (writeLock) {
            return length;
        }
    }

    private void checkUsable() throws IOException {
        IOException f = failure;
        if (f != null) {
            throw new IOException("WAL " + path + " failed earlier: " + f.getMessage(), f);
        }
    }

    /** Writes what is buffered, forces the file and closes it. */
    @Override
    public void close() throws IOException {
        try {
            if (failure == null) {
                flush();
                channel.force(true);
            }
        } finally {
            channel.close();
        }
    }
}
