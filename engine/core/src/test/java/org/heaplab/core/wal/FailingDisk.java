package org.heaplab.core.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.StandardOpenOption;

/**
 * A test double for a disk that fails, since a failing disk cannot be made on demand: while installed
 * ({@link #install}, through {@link ChannelWalSink}'s package-private channel seam) every new WAL file's
 * channel is a real one whose {@code force} throws once {@link #failForces} is set, and creating a new
 * file throws once {@link #failNewFiles} is set. Everything else goes to the real channel.
 *
 * <p>The server module's FsyncFailingDisk is a copy of its force-failing half (modules do not share test classes).
 */
final class FailingDisk implements AutoCloseable {
    static final String FORCE_ERROR = "simulated EIO: the disk refused the fsync";
    static final String CREATE_ERROR = "simulated ENOSPC: no space left for a new file";

    private final ChannelWalSink.ChannelOpener previous = ChannelWalSink.channels;
    private volatile boolean forcesFail;
    private volatile boolean newFilesFail;

    static FailingDisk install() {
        FailingDisk disk = new FailingDisk();
        ChannelWalSink.channels = path -> {
            if (disk.newFilesFail) {
                throw new IOException(CREATE_ERROR + ": " + path);
            }
            return disk.new Channel(FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        };
        return disk;
    }

    void failForces() {
        forcesFail = true;
    }

    void failNewFiles() {
        newFilesFail = true;
    }

    /** Puts the real channels back. */
    @Override
    public void close() {
        ChannelWalSink.channels = previous;
    }

    /** A real file's channel whose force fails while the disk fails forces. */
    private final class Channel extends FileChannel {
        private final FileChannel real;

        Channel(FileChannel real) {
            this.real = real;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (forcesFail) {
                throw new IOException(FORCE_ERROR);
            }
            real.force(metaData);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return real.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return real.write(srcs, offset, length);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return real.write(src, position);
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return real.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return real.read(dsts, offset, length);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return real.read(dst, position);
        }

        @Override
        public long position() throws IOException {
            return real.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            real.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return real.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            real.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return real.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return real.transferFrom(src, position, count);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return real.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return real.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return real.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            real.close();
        }
    }
}
