package org.heaplab.core.wal;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.io.StorageConstants;
import org.heaplab.core.util.CrashPoints;

/**
 * The region server's write-ahead log: a directory of numbered WAL files, one of them open for
 * appends. Each open file is a {@link GroupCommitWal} (ring buffer, consumer, syncers: group commit);
 * this class keeps what spans files: numbering, rolling at a size, sequence ids that continue across
 * files, and deleting a rolled file once every region has flushed past its highest sequence id.
 *
 * <p>Bookkeeping (as HBase's SequenceIdAccounting): for each region with unflushed edits, the lowest
 * sequence id of those edits. When a flush takes its snapshot ({@link #startFlush}) the region's entry
 * moves aside until the flush is durable ({@link #completeFlush}) or fails ({@link #abortFlush}). A
 * rolled file is obsolete when its highest sequence id is below every remaining entry.
 *
 * <p>Thread safety: appends ({@link #begin}, {@link #append}) run concurrently under the read side of
 * {@code rollLock} (only to publish into the current file; they wait for durability outside it);
 * {@link #roll} and {@link #close} take the write side, so no append is half-published into a file
 * being closed. Closing a file drains and forces it, completing every durability future of its appends.
 * The flush bookkeeping methods are synchronized. Callers must take a region's snapshot under a lock
 * that excludes that region's appends, so that no edit lands between the snapshot and {@link #startFlush}.
 *
 * <p>Failure: the first I/O failure of a file (a write, a force) or of a roll fails the whole WAL:
 * {@link #failure} completes, every append waiting for a sync has failed and every later one is refused
 * (the region server then aborts, engine/docs/wal-group-commit.md).
 */
public final class Wal implements Closeable {
    private static final Logger LOG = Logger.getLogger(Wal.class.getName());
    /** Bytes a record adds besides its cells (record header, seq id, names, cell count), roughly. */
    private static final int RECORD_OVERHEAD = 64;

    private final Path dir;
    private final long rollSize;
    private final boolean hsync;
    private final Configuration conf;
    private final ReentrantReadWriteLock rollLock = new ReentrantReadWriteLock();
    /** Rolled (closed) files: file number -> highest seq id in the file. Guarded by this. */
    private final TreeMap<Long, Long> rolled = new TreeMap<>();
    /** Region -> lowest unflushed seq id; merged into by concurrent appends. */
    private final Map<String, Long> oldestUnflushed = new ConcurrentHashMap<>();
    private final Map<String, Long> oldestFlushing = new ConcurrentHashMap<>();
    private final AtomicLong currentBytes = new AtomicLong();
    private final AtomicLong appendCount = new AtomicLong();
    private final AtomicLong syncsBefore = new AtomicLong();
    private final AtomicLong forcesBefore = new AtomicLong();
    /** The first I/O failure of any file (a write, a force, a roll); after it nothing is accepted. */
    private final CompletableFuture<WalFailure> failure = new CompletableFuture<>();
    private volatile GroupCommitWal current;
    private long currentNumber;
    private volatile boolean closed;

    /** As below with the group-commit sizes at their defaults. */
    public Wal(Path dir, long rollSize, boolean hsync, long firstSeqId) throws IOException {
        this(dir, rollSize, hsync, firstSeqId, new Configuration());
    }

    /**
     * Starts a new WAL file in {@code dir}, numbered after any existing file (which this instance
     * neither reads nor deletes: replay them first with {@link WalReader}).
     *
     * @param firstSeqId the sequence id the first append gets (above every id already used)
     * @param conf       the group-commit keys ({@link GroupCommitWal#SYNCER_COUNT}, ...)
     */
    public Wal(Path dir, long rollSize, boolean hsync, long firstSeqId, Configuration conf) throws IOException {
        this.dir = dir;
        this.rollSize = rollSize;
        this.hsync = hsync;
        this.conf = conf;
        Files.createDirectories(dir);
        List<Path> existing = listFiles(dir);
        long last = existing.isEmpty() ? 0 : fileNumber(existing.get(existing.size() - 1));
        open(last + 1, firstSeqId);
    }

    /** WAL files in {@code dir}, oldest first. */
    public static List<Path> listFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(StorageConstants.WAL_FILE_PREFIX))
                .filter(p -> !p.getFileName().toString().endsWith(".tmp"))
                .sorted((a, b) -> Long.compare(fileNumber(a), fileNumber(b)))
                .toList();
        }
    }

    static long fileNumber(Path p) {
        String name = p.getFileName().toString().substring(StorageConstants.WAL_FILE_PREFIX.length());
        try {
            return Long.parseLong(name);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("not a WAL file name: " + p, e);
        }
    }

    static String fileName(long number) {
        return StorageConstants.WAL_FILE_PREFIX + String.format("%020d", number);
    }

    private void open(long number, long firstSeqId) throws IOException {
        Path file = dir.resolve(fileName(number));
        current = GroupCommitWal.create(file, firstSeqId, conf);
        current.failure().thenAccept(e -> failed(file, e));
        currentNumber = number;
        currentBytes.set(0);
    }

    /**
     * Completes with the WAL's first I/O failure (on the thread that met it: hand any slow reaction to
     * another). By then every append waiting for a sync has failed, and every later one is refused.
     */
    public CompletableFuture<WalFailure> failure() {
        return failure;
    }

    private void failed(Path file, IOException cause) {
        failure.complete(new WalFailure(file, cause));
    }

    /** {@code d} with USE_DEFAULT resolved: SYNC_WAL, or FSYNC_WAL when hbase.wal.hsync is true. */
    public Durability resolve(Durability d) {
        return d == Durability.USE_DEFAULT ? (hsync ? Durability.FSYNC_WAL : Durability.SYNC_WAL) : d;
    }

    /**
     * Begins a write of one region's batch through the region's {@code mvcc}: publishes it into the
     * current file (the sequence id is known when this returns) and records it as unflushed. Does not
     * wait for durability: wait on {@code entry.append().durable()} as the durability asks, and complete
     * the entry in every case. The cells are read later, by the file's consumer thread: they must stay
     * valid until that future completes (normally or not).
     *
     * @throws IOException when the WAL is closed or has failed (nothing was begun)
     */
    public WriteEntry begin(Mvcc mvcc, String table, String region, List<? extends Cell> cells, Durability durability)
        throws IOException {
        return begin(mvcc, new WALKey(table, region), WALEdit.of(cells), durability);
    }

    /** {@link #begin(Mvcc, String, String, List, Durability)} of a region's WALKey and WALEdit (HRegion.doWALAppend). */
    public WriteEntry begin(Mvcc mvcc, WALKey key, WALEdit edit, Durability durability) throws IOException {
        String region = key.region();
        Durability d = resolve(durability);
        WriteEntry e;
        rollLock.readLock().lock();
        try {
            checkOpen();
            e = mvcc.begin(current, key, edit, d);
            appendCount.incrementAndGet();
            if (d != Durability.SKIP_WAL) {
                Long oldest = oldestUnflushed.get(region);
                if (oldest == null || oldest > e.seqId()) { // usually an older edit is there: no boxing per put
                    oldestUnflushed.merge(region, e.seqId(), Math::min);
                }
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while beginning a WAL append");
        } finally {
            rollLock.readLock().unlock();
        }
        rollIfFull(d, edit.cells());
        return e;
    }

    /**
     * Appends one batch of one region without MVCC and waits until it is durable as {@code durability}
     * asks (tools and tests; regions use {@link #begin}).
     *
     * @return the batch's sequence id
     */
    public long append(String table, String region, List<? extends Cell> cells, Durability durability)
        throws IOException {
        Durability d = resolve(durability);
        WalAppend a;
        rollLock.readLock().lock();
        try {
            checkOpen();
            a = current.append(table, region, cells, d);
            appendCount.incrementAndGet();
            if (d != Durability.SKIP_WAL) {
                oldestUnflushed.merge(region, a.seqId(), Math::min);
            }
        } finally {
            rollLock.readLock().unlock();
        }
        rollIfFull(d, cells);
        try {
            return a.awaitDurable();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a WAL sync");
        }
    }

    /** {@link #append(String, String, List, Durability)} with the default durability. */
    public long append(String table, String region, List<? extends Cell> cells) throws IOException {
        return append(table, region, cells, Durability.USE_DEFAULT);
    }

    private void checkOpen() throws IOException {
        WalFailure f = failure.getNow(null);
        if (f != null) {
            throw new IOException(f.describe() + "; the WAL accepts no write any more", f.cause());
        }
        if (closed) {
            throw new IOException("WAL " + dir + " is closed");
        }
    }

    private void rollIfFull(Durability d, List<? extends Cell> cells) throws IOException {
        if (d == Durability.SKIP_WAL) {
            return;
        }
        long bytes = RECORD_OVERHEAD;
        for (int i = 0; i < cells.size(); i++) { // indexed: no iterator per put
            bytes += cells.get(i).getSerializedLength();
        }
        GroupCommitWal file = current;
        if (currentBytes.addAndGet(bytes) >= rollSize) {
            rollLock.writeLock().lock();
            try {
                if (current == file && !closed && !failure.isDone()) { // nobody rolled it meanwhile
                    rollLocked();
                }
            } catch (IOException e) {
                // not thrown: this append is begun (its MVCC entry queued) and its own future says whether it
                // is durable; the failure is the WAL's (rollLocked recorded it), every later append is refused
            } finally {
                rollLock.writeLock().unlock();
            }
        }
    }

    /** Closes the current file (draining and forcing it) and starts the next; deletes obsolete files. */
    public void roll() throws IOException {
        rollLock.writeLock().lock();
        try {
            checkOpen();
            if (current.nextSeqId() > current.firstSeqId()) { // something was appended
                rollLocked();
            }
        } finally {
            rollLock.writeLock().unlock();
        }
    }

    /** A roll that fails (closing the old file, creating the next) fails the WAL: HBase aborts then too. */
    private void rollLocked() throws IOException {
        GroupCommitWal old = current;
        try {
            old.close(); // drains the ring, forces the file, completes its futures
            CrashPoints.reach(CrashPoints.ROLL_AFTER_OLD_CLOSED);
            syncsBefore.addAndGet(old.syncCount());
            forcesBefore.addAndGet(old.forceCount());
            long next = old.nextSeqId();
            synchronized (this) {
                rolled.put(currentNumber, next - 1);
            }
            open(currentNumber + 1, next);
            CrashPoints.reach(CrashPoints.ROLL_AFTER_NEW_OPENED);
            deleteObsoleteFiles();
        } catch (IOException e) {
            failed(dir.resolve(fileName(currentNumber)), e);
            throw e;
        }
    }

    /** The region took its memstore snapshot: its unflushed edits now belong to that flush. */
    public synchronized void startFlush(String region) {
        Long oldest = oldestUnflushed.remove(region);
        if (oldest != null) {
            oldestFlushing.merge(region, oldest, Math::min);
        }
    }

    /** The region's flush is durable in a store file: its WAL edits up to the snapshot are obsolete. */
    public synchronized void completeFlush(String region) throws IOException {
        oldestFlushing.remove(region);
        deleteObsoleteFiles();
    }

    /** The region's flush failed: its snapshot's edits are unflushed again. */
    public synchronized void abortFlush(String region) {
        Long oldest = oldestFlushing.remove(region);
        if (oldest != null) {
            oldestUnflushed.merge(region, oldest, Math::min);
        }
    }

    /** The region is gone (table dropped): its edits need not be kept. */
    public synchronized void forgetRegion(String region) throws IOException {
        oldestUnflushed.remove(region);
        oldestFlushing.remove(region);
        deleteObsoleteFiles();
    }

    /** Rolled files still kept, for tests and metrics. */
    public synchronized int rolledFileCount() {
        return rolled.size();
    }

    private synchronized void deleteObsoleteFiles() throws IOException {
        long lowestNeeded = Long.MAX_VALUE;
        for (long s : oldestUnflushed.values()) {
            lowestNeeded = Math.min(lowestNeeded, s);
        }
        for (long s : oldestFlushing.values()) {
            lowestNeeded = Math.min(lowestNeeded, s);
        }
        List<Long> obsolete = new ArrayList<>();
        for (Map.Entry<Long, Long> e : rolled.entrySet()) {
            if (e.getValue() < lowestNeeded) {
                obsolete.add(e.getKey());
            }
        }
        for (long n : obsolete) {
            Files.deleteIfExists(dir.resolve(fileName(n)));
            rolled.remove(n);
            LOG.fine("deleted obsolete WAL " + fileName(n));
        }
    }

    /**
     * Closes the WAL (the current file is drained and forced first). With {@code deleteAll} (every
     * region flushed, nothing left to replay) every WAL file is removed; otherwise the files stay for
     * replay at the next open.
     */
    public void close(boolean deleteAll) throws IOException {
        rollLock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            current.close();
        } finally {
            rollLock.writeLock().unlock();
        }
        if (deleteAll) {
            synchronized (this) {
                for (Path p : listFiles(dir)) {
                    Files.deleteIfExists(p);
                }
                rolled.clear();
            }
        }
    }

    /** Appends begun since this WAL opened (all files, SKIP_WAL included): for metrics. */
    public long appendCount() {
        return appendCount.get();
    }

    /** Filesystem flushes (writes to the channel) of all files so far: for metrics. */
    public long syncCount() {
        return syncsBefore.get() + current.syncCount();
    }

    /** Forces of all files so far: for metrics. */
    public long forceCount() {
        return forcesBefore.get() + current.forceCount();
    }

    /** Closes the WAL and keeps its files (as after a crash). */
    @Override
    public void close() throws IOException {
        close(false);
    }

    /** True while regions have edits that only the WAL holds. */
    public boolean hasUnflushedEdits() {
        return !oldestUnflushed.isEmpty() || !oldestFlushing.isEmpty();
    }
}
