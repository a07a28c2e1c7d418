package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.core.cell.Cell;

/**
 * A {@link WalSink} writing one WAL file in exactly {@link WalWriter}'s format: the file and its
 * header are created by {@link WalWriter#create}, each record is encoded by {@link WalWriter#encode},
 * so {@link WalReader} replays it unchanged.
 *
 * <p>WalWriter itself writes (and optionally forces) on every append; group commit needs the write and
 * the force apart, so this class reopens the file WalWriter created and appends the encoded records
 * with gathering writes. (A small change to WalWriter, splitting append into buffer/flush/force,
 * would remove the reopen: see engine/docs/wal-group-commit.md.)
 *
 * <p>Thread safety: {@link #append} takes the buffer lock briefly; {@link #flush} holds the write
 * lock across swapping the buffer out and writing it, so flushes reach the file in append order.
 *
 * <p>Invariants: the file only ever holds whole records, in append order. A failed write truncates the
 * file back to the last whole record and the sink is unusable afterwards (every later call throws).
 */
public final class ChannelWalSink implements WalSink {
    private final Path path;
    private final FileChannel channel;
    private final Object bufferLock = new Object();
    private final Object writeLock = new Object();
    private List<ByteBuffer> buffered = new ArrayList<>();
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
        ByteBuffer b = WalWriter.encode(seqId, table, region, cells);
        synchronized (bufferLock) {
            buffered.add(b);
        }
    }

    @Override
    public void flush() throws IOException {
        synchronized (writeLock) {
            checkUsable();
            List<ByteBuffer> out;
            synchronized (bufferLock) {
                out = buffered;
                buffered = new ArrayList<>();
            }
            if (out.isEmpty()) {
                return;
            }
            ByteBuffer[] bufs = out.toArray(new ByteBuffer[0]);
            long total = 0;
            for (ByteBuffer b : bufs) {
                total += b.remaining();
            }
            try {
                long written = 0;
                while (written < total) {
                    written += channel.write(bufs);
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
