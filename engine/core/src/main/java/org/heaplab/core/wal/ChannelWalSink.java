package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.io.StorageConstants;

/**
 * A {@link WalSink} writing one WAL file in exactly {@link WalWriter}'s format: the file and its
 * header are created by {@link WalWriter#create}, each record is laid out as {@link WalWriter#encode}
 * lays it out, so {@link WalReader} replays it unchanged.
 *
 * <p>WalWriter itself writes (and optionally forces) on every append; group commit needs the write and
 * the force apart, so this class reopens the file WalWriter created and appends the encoded records
 * with gathering writes. (A small change to WalWriter, splitting append into buffer/flush/force,
 * would remove the reopen: see engine/docs/wal-group-commit.md.)
 *
 * <p>Buffers: records are encoded straight into reusable {@link #CHUNK_SIZE}-byte DIRECT chunks (a
 * record may straddle chunks), as HBase's WAL writer encodes into its output stream's buffer: no heap
 * array per record, and the file write needs no copy into a temporary direct buffer. Written chunks go
 * back to a free list; at most {@link #MAX_DIRECT_CHUNKS} direct chunks are ever made per file (2 MB),
 * more buffered bytes (a disk far behind ASYNC_WAL appends) take heap chunks that are dropped after
 * their write. Table and region names are encoded to UTF-8 once per file.
 *
 * <pre>
 *   append: [len|crc|seqId|table|region|count|cell|cell]   [len|crc|...|cell]  ...
 *           &lt;------------- chunk 0 (64 KB) ---------------&gt;&lt;--- chunk 1 ---
 *   flush:  the filled chunks swapped out, one gathering write, back to the free list
 * </pre>
 *
 * <p>Thread safety: {@link #append} encodes under the buffer lock; {@link #flush} holds the write
 * lock across swapping the chunks out and writing them, so flushes reach the file in append order.
 *
 * <p>Invariants: the file only ever holds whole records, in append order. A failed write truncates the
 * file back to the last whole record and the sink is unusable afterwards (every later call throws).
 */
public final class ChannelWalSink implements WalSink {
    /** One encode chunk: HBase's hbase.wal.batch.size default, so a typical flush is one or two chunks. */
    static final int CHUNK_SIZE = 64 * 1024;
    /** Direct chunks made per file at most (2 MB): beyond, heap chunks that are not kept. */
    static final int MAX_DIRECT_CHUNKS = 32;
    /** Names remembered per file (a file sees its server's regions): cleared when it would grow beyond. */
    private static final int MAX_NAMES = 4096;

    private final Path path;
    private final FileChannel channel;
    private final Object bufferLock = new Object();
    private final Object writeLock = new Object();
    // under bufferLock
    private List<ByteBuffer> filled = new ArrayList<>();
    private List<ByteBuffer> spare = new ArrayList<>();
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private int directChunks;
    private final CRC32C crc = new CRC32C();
    private byte[] prefix = new byte[256];
    private final Map<String, byte[]> names = new HashMap<>();
    // under writeLock
    private ByteBuffer[] writeArray = new ByteBuffer[16];
    private long length;
    private volatile IOException failure;

    private ChannelWalSink(Path path, FileChannel channel, long length) {
        this.path = path;
        this.channel = channel;
        this.length = length;
    }

    /** Creates a new WAL file (it must not exist), its header durable, via {@link WalWriter#create}. */
    public static ChannelWalSink create(Path path) throws IOException {
        WalWriter.create(path, false).close();
        FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE);
        long size = ch.size();
        ch.position(size);
        return new ChannelWalSink(path, ch, size);
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
            putInt((int) bodyLength);
            ByteBuffer at = tail(); // the CRC's place: filled in once the body is written
            int crcChunk = filled.size() - 1;
            int crcPos = at.position();
            putInt(0);
            crc.reset();
            crc.update(prefix, 0, prefixLength);
            put(prefix, prefixLength);
            for (int i = 0; i < cells.size(); i++) {
                ByteBuffer cell = cells.get(i).serializedView();
                crc.update(cell);
                put(cell.position(0));
            }
            setInt(crcChunk, crcPos, (int) crc.getValue());
        }
    }

    /** Writes {@code v} at byte {@code pos} of filled chunk {@code chunk}, going on in the next chunk at its end. */
    private void setInt(int chunk, int pos, int v) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            ByteBuffer c = filled.get(chunk);
            if (pos == c.capacity()) {
                c = filled.get(++chunk);
                pos = 0;
            }
            c.put(pos++, (byte) (v >>> shift));
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

    /** The chunk being filled: the last one, or a new one when it is full (or none was started). */
    private ByteBuffer tail() {
        ByteBuffer last = filled.isEmpty() ? null : filled.get(filled.size() - 1);
        if (last != null && last.hasRemaining()) {
            return last;
        }
        ByteBuffer c = free.poll();
        if (c == null) {
            c = newChunk();
        }
        filled.add(c);
        return c;
    }

    private ByteBuffer newChunk() {
        if (directChunks < MAX_DIRECT_CHUNKS) {
            try {
                ByteBuffer c = ByteBuffer.allocateDirect(CHUNK_SIZE);
                directChunks++;
                return c;
            } catch (OutOfMemoryError e) {
                directChunks = MAX_DIRECT_CHUNKS; // direct memory is short: do not try again for this file
            }
        }
        return ByteBuffer.allocate(CHUNK_SIZE);
    }

    private void putInt(int v) {
        put((byte) (v >>> 24));
        put((byte) (v >>> 16));
        put((byte) (v >>> 8));
        put((byte) v);
    }

    private void put(byte b) {
        tail().put(b);
    }

    private void put(byte[] src, int n) {
        int pos = 0;
        while (pos < n) {
            ByteBuffer dst = tail();
            int k = Math.min(dst.remaining(), n - pos);
            dst.put(src, pos, k);
            pos += k;
        }
    }

    /** Copies {@code src} from its position to its limit. */
    private void put(ByteBuffer src) {
        while (src.hasRemaining()) {
            ByteBuffer dst = tail();
            int k = Math.min(dst.remaining(), src.remaining());
            dst.put(dst.position(), src, src.position(), k);
            dst.position(dst.position() + k);
            src.position(src.position() + k);
        }
    }

    @Override
    public void flush() throws IOException {
        synchronized (writeLock) {
            checkUsable();
            List<ByteBuffer> out;
            synchronized (bufferLock) {
                out = filled;
                filled = spare; // empty: the next append starts a fresh chunk
                spare = null;
            }
            try {
                write(out);
            } finally {
                synchronized (bufferLock) {
                    for (ByteBuffer c : out) {
                        if (c.isDirect() && failure == null) {
                            free.add(c.clear());
                        }
                    }
                    out.clear();
                    spare = out;
                }
            }
        }
    }

    /** Writes the chunks (each up to its position) with gathering writes; writeLock held. */
    private void write(List<ByteBuffer> out) throws IOException {
        int n = out.size();
        if (n == 0) {
            return;
        }
        if (writeArray.length < n) {
            writeArray = new ByteBuffer[Math.max(n, writeArray.length * 2)];
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            ByteBuffer b = out.get(i).flip();
            writeArray[i] = b;
            total += b.remaining();
        }
        try {
            long written = 0;
            while (written < total) {
                written += channel.write(writeArray, 0, n);
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
        } finally {
            java.util.Arrays.fill(writeArray, 0, n, null);
        }
        length += total;
    }

    @Override
    public void force() throws IOException {
        checkUsable();
        channel.force(false);
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
